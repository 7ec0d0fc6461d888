#!/bin/sh
# 0095-deploy.sh - the launch files of deploy/ and the Dockerfile, checked
# without the launchers (no kubectl, Slurm or MPI here; no python either):
#
#  1. tests/helper/yamlget, which reads the YAML (libyaml): values, counts,
#     escapes, and its exit codes for what is missing, of the wrong kind,
#     duplicated or not YAML.
#  2. deploy/kubernetes/job.yaml: a batch/v1 Job, Indexed, completions =
#     parallelism = the command's --parts, restartPolicy Never, backoffLimit
#     0, one container whose command tpccbench accepts (run or bench, -c the
#     ConfigMap's file), TPCC_RUN_ID from the job-name label, the password
#     from the Secret of secret.example.yaml (name and key) into the variable
#     the config's password_env names, no password as a literal value, every
#     volume mounted and every mount a volume, the config's results.dir an
#     emptyDir mount; the Job's name a valid run id, named in deploy/README.md.
#  3. deploy/kubernetes/configmap.yaml: its tpcc.yaml written out and loaded
#     by tpccbench as it stands (`run -c FILE stop-here`, the idiom of 0080:
#     the file is checked before the stray argument), and run through the
#     null driver (exit 0); postgres, no password in conninfo, no part,
#     parts or run_id; a broken copy is refused (exit 2), so a load means
#     something.  secret.example.yaml: a Secret holding a placeholder.
#  4. deploy/slurm/tpccbench.sbatch: bash -n; --ntasks (= --nodes x
#     --ntasks-per-node when given); run with a stub srun on PATH, it hands
#     srun `tpccbench run -c CONFIG` with the script's argument, options
#     tpccbench accepts, and no --part or run id of its own.
#  5. Dockerfile: every stage FROM debian:bookworm(-slim); the build stage
#     installs with scripts/deps.sh build and runs make install; the runtime
#     stage installs the package of every library the binary loads (dpkg -S
#     here, Debian 12 too); .dockerignore leaves out .git and build.  When a
#     Docker daemon answers (`docker info`), the image is built and
#     `tpccbench --version` run in it as uid 10001; otherwise a skip says why.
#
# TPCC_DEPLOY_ROOT=DIR checks the copies in DIR (deploy/, Dockerfile,
# .dockerignore) instead: break one there and watch its check fail.
# Prints TAP; removes its temp directory (and the image), pass or fail.  A
# few seconds without Docker; a Docker build takes minutes.
#
# get() assigns through eval (SC2154); command lines are split into words on purpose
# (SC2046); cleanup runs from the EXIT trap (SC2317).
# shellcheck disable=SC2154,SC2046,SC2317
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"

t_helper yg yamlget
# The files under test; TPCC_DEPLOY_ROOT points the test at a copy (to see a check fail).
top=${TPCC_DEPLOY_ROOT:-$root}
job=$top/deploy/kubernetes/job.yaml
cm=$top/deploy/kubernetes/configmap.yaml
sec=$top/deploy/kubernetes/secret.example.yaml
sbatch=$top/deploy/slurm/tpccbench.sbatch
dockerfile=$top/Dockerfile
for f in "$job" "$cm" "$sec" "$sbatch" "$dockerfile" "$top/.dockerignore" "$top/deploy/README.md"; do
    [ -r "$f" ] || bail_out "$f is missing"
done

t_begin t0095
image=''
# The image this script built, removed on the way out.
rm_image() {
    [ -z "$image" ] || docker rmi -f "$image" >/dev/null 2>&1
}
t_extra_cleanup=rm_image

# get VAR FILE DOC PATH / get VAR -n FILE DOC PATH: yamlget's output into VAR, its exit
# status into yrc, its stderr into $tmp/yg.err.
get() {
    _var=$1
    shift
    _val=$("$yg" "$@" 2>"$tmp/yg.err")
    yrc=$?
    eval "$_var=\$_val"
}

# has FILE DOC PATH: 0 when something (scalar, sequence or mapping) is at PATH.
has() {
    "$yg" "$@" >/dev/null 2>&1
    case $? in 0 | 3) return 0 ;; *) return 1 ;; esac
}

# A key as one part of a yamlget path: dots escaped.
esc() {
    printf '%s' "$1" | sed 's/\\/\\\\/g; s/\./\\./g'
}

# --- 1. the reader --------------------------------------------------------------
cat >"$tmp/t.yaml" <<'EOF'
a:
  list: [x, y, {k: "v w"}]
  "d.e": 5
  empty:
  block: |
    one
    two
---
kind: Two
EOF
printf 'a:\n  x: 1\n  y: 2\n  x: 3\n' >"$tmp/dup.yaml"
printf 'a: 1\n---\nb: [1, 2\n' >"$tmp/bad.yaml"
tab=$(printf '\t')
# args <TAB> exit status <TAB> stdout (\n: a newline)
while IFS=$tab read -r args want wout; do
    # shellcheck disable=SC2086
    out=$(cd "$tmp" && "$yg" $args 2>"$tmp/yg.err"; echo "rc=$?")
    got_rc=${out##*rc=}
    # shellcheck disable=SC2016
    got=$(printf '%s' "${out%rc=*}" | sed -n 'H; ${x; s/^\n//; s/\n/\\n/g; p}')
    # (The description shows a newline as " / ": tap.sh's echo would print \n as one.)
    is "$got_rc|$got" "$want|$wout" "yamlget $args: exit $want${wout:+, prints $(printf "%s" "$wout" | sed 's|\\n| / |g')}" ||
        diag "stderr: $(cat "$tmp/yg.err")"
done <<EOF
t.yaml 0 a.list.2.k${tab}0${tab}v w
t.yaml 0 a.d\\.e${tab}0${tab}5
t.yaml 0 a.empty${tab}0${tab}
t.yaml 0 a.block${tab}0${tab}one\\ntwo
t.yaml 1 kind${tab}0${tab}Two
-n t.yaml 0 a.list${tab}0${tab}3
-n t.yaml 0 a${tab}0${tab}4
-n t.yaml${tab}0${tab}2
t.yaml 2 kind${tab}1${tab}
t.yaml 0 a.nope${tab}1${tab}
t.yaml 0 a.list.3${tab}1${tab}
t.yaml 0 a.list${tab}3${tab}
t.yaml 0 a.list.x${tab}3${tab}
-n t.yaml 0 a.d\\.e${tab}3${tab}
t.yaml 0 a.${tab}2${tab}
t.yaml x a${tab}2${tab}
dup.yaml 0 a.y${tab}2${tab}
bad.yaml 0 a${tab}2${tab}
missing.yaml 0 a${tab}2${tab}
t.yaml 0${tab}2${tab}
EOF
(cd "$tmp" && "$yg" dup.yaml 0 a.y) 2>"$tmp/yg.err"
is "$(cat "$tmp/yg.err")" "yamlget: dup.yaml:4:3: duplicate key 'x' (first at line 2)" \
    "yamlget names a duplicate key's file, line and column"
(cd "$tmp" && "$yg" bad.yaml 0 a) 2>"$tmp/yg.err"
like "$(cat "$tmp/yg.err")" "yamlget: bad.yaml:4:1: not YAML: *" \
    "yamlget names where a later document stops being YAML"

# --- 2. the Job -------------------------------------------------------------------
get n -n "$job"
is "$yrc $n" "0 1" "job.yaml: one YAML document" || diag "$(cat "$tmp/yg.err")"
get v "$job" 0 apiVersion
is "$v" batch/v1 "job.yaml: apiVersion batch/v1"
get v "$job" 0 kind
is "$v" Job "job.yaml: kind Job"
get v "$job" 0 spec.completionMode
is "$v" Indexed "job.yaml: completionMode Indexed (each pod gets JOB_COMPLETION_INDEX)"
get completions "$job" 0 spec.completions
get parallelism "$job" 0 spec.parallelism
case $completions in
'' | *[!0-9]* | 0*) fail "job.yaml: completions is an integer >= 1" "got: '$completions'" ;;
*) pass "job.yaml: completions is an integer >= 1 ($completions)" ;;
esac
is "$parallelism" "$completions" "job.yaml: parallelism = completions (every part at once)"
get v "$job" 0 spec.template.spec.restartPolicy
is "$v" Never "job.yaml: restartPolicy Never (a part is not run twice)"
get v "$job" 0 spec.backoffLimit
is "$v" 0 "job.yaml: backoffLimit 0 (a part that fails fails the Job)"
get name "$job" 0 metadata.name
case $name in
'' | *[!a-z0-9-]* | -* | *-) fail "job.yaml: the Job's name is a run id (a-z, 0-9, '-')" "got: '$name'" ;;
*)
    ok "$([ ${#name} -le 63 ]; echo $?)" "job.yaml: the Job's name '$name' is a run id (a-z, 0-9, '-', <= 63)"
    ;;
esac
like "$(cat "$top/deploy/README.md")" "*job-name=$name *" "deploy/README.md's kubectl lines name the Job ($name)"

pod=spec.template.spec
get n -n "$job" 0 $pod.containers
is "$n" 1 "job.yaml: one container"
c=$pod.containers.0
# The command line: command (else the image's entrypoint, tpccbench) then args, one a line.
: >"$tmp/argv"
if has "$job" 0 $c.command; then
    get n -n "$job" 0 $c.command
    i=0
    while [ "$i" -lt "${n:-0}" ]; do
        get v "$job" 0 $c.command.$i
        printf '%s\n' "$v" >>"$tmp/argv"
        i=$((i + 1))
    done
else
    echo tpccbench >"$tmp/argv"
fi
if has "$job" 0 $c.args; then
    get n -n "$job" 0 $c.args
    i=0
    while [ "$i" -lt "${n:-0}" ]; do
        get v "$job" 0 $c.args.$i
        printf '%s\n' "$v" >>"$tmp/argv"
        i=$((i + 1))
    done
fi
argv=$(tr '\n' ' ' <"$tmp/argv")
like "$argv" "tpccbench *" "job.yaml: the container runs tpccbench ($argv)"
cmd=$(sed -n 2p "$tmp/argv")
case $cmd in
run | bench) pass "job.yaml: the command is run or bench ($cmd)" ;;
*) fail "job.yaml: the command is run or bench" "got: '$cmd'" ;;
esac
# opt NAME...: the value of the first of these options (--x V, --x=V, -c V).
opt() {
    awk -v names=" $* " 'p { print; exit } { for (i = split(names, n, " "); i; i--) {
        if ($0 == n[i]) { p = 1; break } if (index($0, n[i] "=") == 1) { print substr($0, length(n[i]) + 2); exit } } }' "$tmp/argv"
}
parts=$(opt --parts)
is "$parts" "$completions" "job.yaml: --parts = completions (N, which Kubernetes does not tell the pods)"
unlike "$argv" "*--part *" "job.yaml: no --part K/N (each pod's K comes from its index)"
unlike "$argv" "*--part=*" "job.yaml: no --part=K/N"
cfgpath=$(opt -c --config)
like "$cfgpath" "/*" "job.yaml: -c names a file by its absolute path ($cfgpath)"
# Every option of the command line is one tpccbench knows (--help after them: parsed, not run).
set -- $(sed 1d "$tmp/argv")
run argv "$bin" "$@" --help
is "$rc" 0 "job.yaml: tpccbench accepts the container's command line ($argv--help)" || explain

# The environment.
get n -n "$job" 0 $c.env
i=0
runid_field='' secret_var='' secret_name='' secret_key='' literal_pw='' names=''
while [ "$i" -lt "${n:-0}" ]; do
    get ename "$job" 0 $c.env.$i.name
    names="$names $ename"
    if [ "$ename" = TPCC_RUN_ID ]; then
        get runid_field "$job" 0 $c.env.$i.valueFrom.fieldRef.fieldPath
    fi
    if has "$job" 0 $c.env.$i.valueFrom.secretKeyRef; then
        secret_var=$ename
        get secret_name "$job" 0 $c.env.$i.valueFrom.secretKeyRef.name
        get secret_key "$job" 0 $c.env.$i.valueFrom.secretKeyRef.key
    fi
    case $ename in *PASS* | *SECRET* | *TOKEN*)
        has "$job" 0 $c.env.$i.value && literal_pw="$literal_pw $ename" ;;
    esac
    i=$((i + 1))
done
is "$runid_field" "metadata.labels['batch.kubernetes.io/job-name']" \
    "job.yaml: TPCC_RUN_ID from the downward API, the Job's name (shared by its pods)"
is "$(printf '%s\n' $names | sort | uniq -d | tr '\n' ' ')" "" "job.yaml: no variable set twice ($names)"
is "$literal_pw" "" "job.yaml: no password-like variable with a literal value"
get sname "$sec" 0 metadata.name
is "$secret_name" "$sname" "job.yaml: the secretKeyRef names secret.example.yaml's Secret ($sname)"
if has "$sec" 0 "stringData.$(esc "$secret_key")" || has "$sec" 0 "data.$(esc "$secret_key")"; then
    pass "job.yaml: the secretKeyRef's key '$secret_key' is in secret.example.yaml"
else
    fail "job.yaml: the secretKeyRef's key is in secret.example.yaml" "key: '$secret_key'"
fi

# Volumes and mounts.
get nv -n "$job" 0 $pod.volumes
get nm -n "$job" 0 $c.volumeMounts
vols='' mounts=''
i=0
while [ "$i" -lt "${nv:-0}" ]; do
    get v "$job" 0 $pod.volumes.$i.name
    vols="$vols $v"
    i=$((i + 1))
done
i=0
while [ "$i" -lt "${nm:-0}" ]; do
    get v "$job" 0 $c.volumeMounts.$i.name
    get mp "$job" 0 $c.volumeMounts.$i.mountPath
    mounts="$mounts $v"
    echo "$v $mp" >>"$tmp/mounts"
    i=$((i + 1))
done
vols=$(printf '%s\n' $vols | sort | tr '\n' ' ')
mounts=$(printf '%s\n' $mounts | sort | tr '\n' ' ')
ok "$([ -n "$vols" ]; echo $?)" "job.yaml: the pod has volumes ($vols)"
is "$mounts" "$vols" "job.yaml: every volume is mounted once, every mount is a volume"
# mount_of FILE: the mount FILE is inside, as "name path".
mount_of() {
    while read -r _n _p; do
        case $1 in "$_p"/*) echo "$_n $_p" ;; esac
    done <"$tmp/mounts" 2>/dev/null | head -n 1
}
# volume NAME: its index.
volume() {
    _i=0
    while [ "$_i" -lt "${nv:-0}" ]; do
        get _v "$job" 0 $pod.volumes.$_i.name
        [ "$_v" = "$1" ] && echo "$_i" && return 0
        _i=$((_i + 1))
    done
    return 1
}
set -- $(mount_of "$cfgpath")
cfgvol=${1:-} cfgmount=${2:-}
ok "$([ -n "$cfgvol" ]; echo $?)" "job.yaml: -c $cfgpath is inside a mount ($cfgvol at $cfgmount)"
vi=$(volume "$cfgvol")
get cfgmap "$job" 0 "$pod.volumes.${vi:-x}.configMap.name"
get cmname "$cm" 0 metadata.name
is "$cfgmap" "$cmname" "job.yaml: that mount is configmap.yaml's ConfigMap ($cmname)"
cfgkey=${cfgpath#"$cfgmount"/}
ok "$(has "$cm" 0 "data.$(esc "$cfgkey")"; echo $?)" "job.yaml: the ConfigMap holds the key -c reads ($cfgkey)"

# --- 3. the ConfigMap's config, the Secret ----------------------------------------------
get v "$cm" 0 apiVersion
get k "$cm" 0 kind
is "$v $k" "v1 ConfigMap" "configmap.yaml: a v1 ConfigMap"
conf=$tmp/cfg/tpcc.yaml
mkdir "$tmp/cfg" && "$yg" "$cm" 0 "data.$(esc "$cfgkey")" >"$conf" 2>"$tmp/yg.err"
ok $? "configmap.yaml: its $cfgkey written out" || diag "$(cat "$tmp/yg.err")"
# The config as it stands: read and checked whole before the stray argument is refused.
run cfgload sh -c 'cd "$1" && exec "$2" "$3" -c tpcc.yaml stop-here' sh "$tmp/cfg" "$bin" "$cmd"
is "$rc $err" "2 tpccbench $cmd: unexpected argument 'stop-here'" \
    "configmap.yaml: tpccbench $cmd loads its config (only the stray argument refused)"
# The control: a broken copy is refused, naming the file and line.
{
    cat "$conf"
    printf 'no_such_section: 1\n'
} >"$tmp/cfg/broken.yaml"
run cfgbad sh -c 'cd "$1" && exec "$2" "$3" -c broken.yaml stop-here' sh "$tmp/cfg" "$bin" "$cmd"
like "$rc $err" "2 tpccbench $cmd: broken.yaml:*" "the control: the same config broken is refused (exit 2)"
# Run through the null driver: no server, one transaction per terminal.
run nullrun env TPCC_PASSWORD=not-a-password "$bin" "$cmd" -c "$conf" --driver null --warmup 0s \
    --rampup 0s --transactions 1 --metrics false --results-dir "$tmp/results" --label deploy
is "$rc" 0 "configmap.yaml: tpccbench $cmd runs its config through the null driver" || explain
get v "$conf" 0 database.driver
is "$v" postgres "tpcc.yaml: database.driver postgres"
get conninfo "$conf" 0 database.conninfo
like "$conninfo" "*host=*" "tpcc.yaml: conninfo names a host ($conninfo)"
unlike "$conninfo" "*password*" "tpcc.yaml: no password in conninfo"
get pwenv "$conf" 0 database.password_env
is "$pwenv" "$secret_var" "tpcc.yaml: password_env is the variable the Job fills from the Secret"
get resdir "$conf" 0 results.dir
set -- $(mount_of "$resdir/x")
resvol=${1:-}
is "${2:-}" "$resdir" "tpcc.yaml: results.dir $resdir is a mount of the Job's"
vi=$(volume "$resvol")
ok "$(has "$job" 0 "$pod.volumes.${vi:-x}.emptyDir"; echo $?)" "job.yaml: results go to an emptyDir ($resvol)"
for k in part parts run_id; do
    if has "$conf" 0 run.$k; then
        fail "tpcc.yaml: no run.$k (the launcher and the Job give it)"
    else
        pass "tpcc.yaml: no run.$k (the launcher and the Job give it)"
    fi
done
get v "$sec" 0 apiVersion
get k "$sec" 0 kind
is "$v $k" "v1 Secret" "secret.example.yaml: a v1 Secret"
get pw "$sec" 0 "stringData.$(esc "$secret_key")"
like "$pw" "CHANGE-ME*" "secret.example.yaml: the value is the placeholder ($pw)"
like "$(head -n 3 "$sec")" "*EXAMPLE*NOT A SECRET*" "secret.example.yaml says it is an example first"

# --- 4. Slurm -----------------------------------------------------------------------------
bash -n "$sbatch" 2>"$tmp/bash.err"
ok $? "tpccbench.sbatch: bash -n" || diag "$(cat "$tmp/bash.err")"
# sb NAME: the value of "#SBATCH --NAME=V" (or "--NAME V").
sb() {
    sed -n "s/^#SBATCH[ 	]*--$1[= ]\([^ 	]*\).*/\1/p" "$sbatch" | tail -n 1
}
ntasks=$(sb ntasks) nodes=$(sb nodes) pernode=$(sb ntasks-per-node)
case $ntasks in
'' | *[!0-9]* | 0*) fail "tpccbench.sbatch: #SBATCH --ntasks=N, the parts" "got: '$ntasks'" ;;
*) pass "tpccbench.sbatch: #SBATCH --ntasks=$ntasks, the parts" ;;
esac
if [ -n "$nodes" ] && [ -n "$pernode" ]; then
    is "$((nodes * pernode))" "$ntasks" "tpccbench.sbatch: --nodes x --ntasks-per-node = --ntasks"
else
    skip "tpccbench.sbatch: --nodes and --ntasks-per-node not both given"
fi
like "$(grep -v '^[ 	]*#' "$sbatch")" "*srun *tpccbench run *" "tpccbench.sbatch: srun starts tpccbench run"
unlike "$(grep -v '^[ 	]*#' "$sbatch")" "*--part[ =]*" "tpccbench.sbatch: no --part (each task's comes from Slurm)"
unlike "$(grep -v '^[ 	]*#' "$sbatch")" "*--run-id*" "tpccbench.sbatch: no --run-id (slurm-<SLURM_JOB_ID> is the default)"
unlike "$(grep -v '^[ 	]*#' "$sbatch")" "*TPCC_RUN_ID*" "tpccbench.sbatch: no TPCC_RUN_ID (slurm-<SLURM_JOB_ID> is the default)"
# Run it as sbatch would, with a stub srun that writes down what it was given.
mkdir "$tmp/stub"
cat >"$tmp/stub/srun" <<EOF
#!/bin/sh
for a in "\$@"; do printf '%s\n' "\$a"; done >"$tmp/srun.args"
EOF
chmod +x "$tmp/stub/srun"
(cd "$tmp" && PATH=$tmp/stub:$PATH SLURM_JOB_ID=4711 SLURM_NTASKS=$ntasks SLURM_PROCID=0 \
    bash "$sbatch" /shared/tpcc.yaml >"$tmp/sbatch.out" 2>&1)
ok $? "tpccbench.sbatch runs to its end (srun a stub)" || diag "$(cat "$tmp/sbatch.out")"
sargs=$(sed -n '/^tpccbench$/,$p' "$tmp/srun.args" 2>/dev/null | tr '\n' ' ')
like "$sargs" "tpccbench run -c /shared/tpcc.yaml *" "tpccbench.sbatch: srun gets tpccbench run -c, the script's argument"
set -- $(sed -n '/^tpccbench$/,$p' "$tmp/srun.args" 2>/dev/null | sed 1d)
run sargv "$bin" "$@" --help
is "$rc" 0 "tpccbench.sbatch: tpccbench accepts srun's command line (${sargs}--help)" || explain

# --- 5. the image -------------------------------------------------------------------------
froms=$(sed -n 's/^FROM[ 	]\{1,\}\([^ 	]*\).*/\1/p' "$dockerfile" | tr '\n' ' ')
ok "$([ -n "$froms" ]; echo $?)" "Dockerfile: has FROM lines ($froms)"
bad=''
for f in $froms; do
    case $f in debian:bookworm | debian:bookworm-slim | debian:bookworm-[0-9]*) ;; *) bad="$bad $f" ;; esac
done
is "$bad" "" "Dockerfile: every stage FROM debian:bookworm (Debian 12)"
# The instructions, continuation lines joined.
sed -e ':a' -e '/\\$/{N; s/\\\n/ /; ba' -e '}' "$dockerfile" | grep -v '^[ 	]*#' >"$tmp/df"
like "$(grep '^RUN' "$tmp/df")" "*scripts/deps.sh build*" "Dockerfile: the build deps from scripts/deps.sh build"
like "$(grep '^RUN' "$tmp/df")" "*make install*" "Dockerfile: runs make install"
# The runtime stage: after the last FROM.
last=$(awk '/^FROM/ { n = NR } END { print n }' "$tmp/df")
rt=$(sed -n "$last,\$p" "$tmp/df")
like "$rt" "*tpccbench*" "Dockerfile: the last stage holds tpccbench"
if command -v dpkg >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1; then
    arch=$(dpkg --print-architecture)
    missing='' seen=''
    rtwords=$(printf '%s' "$rt" | tr -s ' \t\n' '   ')
    for l in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        p=$(dpkg -S "*/$l" 2>/dev/null | sed -n "s/^\([^:,]*\):$arch: .*/\1/p" | head -n 1)
        case $p in
        '') missing="$missing $l(no package here)" ;;
        libc6 | libgcc-s1) ;;                          # in every Debian image
        libasan* | libubsan* | liblsan* | libtsan*) ;; # a SANITIZE build's; the image has none
        *)
            seen="$seen $p"
            case " $rtwords " in *" $p "*) ;; *) missing="$missing $p" ;; esac
            ;;
        esac
    done
    is "$missing" "" "Dockerfile: the runtime stage installs every library the binary loads ($seen)"
else
    skip "dpkg or readelf is not here: the runtime libraries are not checked"
fi
for x in .git build; do
    ok "$(grep -qx "$x" "$top/.dockerignore"; echo $?)" ".dockerignore leaves out $x"
done
if ! command -v docker >/dev/null 2>&1; then
    skip "no docker here: the image is not built"
elif ! docker info >/dev/null 2>"$tmp/docker.err"; then
    skip "no Docker daemon answers ($(grep -m 1 -i -e cannot -e error "$tmp/docker.err" || echo "docker info failed")): the image is not built"
else
    image=tpccbench-t0095:$$
    RUN_TIMEOUT=1800
    run dbuild docker build -q -t "$image" -f "$dockerfile" "$top"
    is "$rc" 0 "docker build: the image builds" || explain
    RUN_TIMEOUT=120
    run dver docker run --rm "$image" --version
    like "$rc $out" "0 tpccbench 0.1.0 (commit *)" "docker run IMAGE --version" || explain
    run did docker run --rm --entrypoint id "$image" -u
    is "$out" 10001 "the image runs as uid 10001 (runAsNonRoot)" || explain
fi

done_testing
