# study.sh - a study run for the tests of `tpccbench study` and of what
# reads its records (0065: study, 0066: history).  POSIX sh; util.sh's
# t_study NAME sources it and opens such a script (the private PostgreSQL,
# whose data directory is $res/pgdata, stopped at the end; res=$tmp/results):
#
#     study_run NAME DESC       the study file on stdin (its study.name NAME)
#                               into $tmp/NAME.yaml; `$bin study` runs it into
#                               $res (at most 600 s), stdout in $tmp/NAME.out,
#                               stderr in $tmp/NAME.err; the test DESC: it
#                               exits 0 (the tail of its stderr shown when
#                               not).  Sets sdir (the study's folder,
#                               $res/*-study-NAME, the first such; empty when
#                               there is none) and sj ($sdir/study.json).

study_run() {
    _sn=$1
    cat >"$tmp/$_sn.yaml"
    timeout -k 5 600 "$bin" study "$tmp/$_sn.yaml" --results-dir "$res" >"$tmp/$_sn.out" 2>"$tmp/$_sn.err"
    is "$?" 0 "$2" || diag "$(tail -20 "$tmp/$_sn.err")"
    sdir=$(ls -d "$res"/*-study-"$_sn" 2>/dev/null | head -1)
    sj=$sdir/study.json
}
