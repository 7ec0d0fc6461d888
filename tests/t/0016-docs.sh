#!/bin/sh
# 0016-docs.sh - the documentation holds together, without building or
# running anything:
#
#  1. every relative Markdown link of README.md, docs/*.md and
#     deploy/README.md leads to a file or folder that exists, and its #anchor
#     (if any) to a heading of the target file, by GitHub's rule: the
#     heading's text lowercased, ASCII punctuation but '-' and '_' removed,
#     each space made '-', a repeated heading suffixed -1, -2, ...  Links in
#     code (fenced blocks, `spans`) are not links; http(s) and mailto are not
#     followed; an anchor into a file that is not Markdown must be a line (#L12);
#  2. every docs/*.md page is linked from README.md (its table of contents);
#  3. every key of the config key table (src/core/config.c, read as
#     tests/t/0015-install.sh reads it for the man page) is named, in full
#     (`run.max_outage`), in some docs/*.md page;
#  4. README.md is at most 350 lines, and begins with the two commands, then
#     the 5-minute tour.
#
# A failure names the file and line of each broken link, or each key
# missing.  Prints TAP; removes its temp directory, pass or fail.  Under a
# second.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/util.sh"
t_begin t0016
cd "$root" || bail_out "cd $root failed"

readme_max=350

# md_scan links FILE: "LINE<tab>TARGET" for each link outside code, inline
# ([text](target), ![alt](target)) or a reference definition ([id]: target).
# md_scan anchors FILE: the anchor of each heading outside code (GitHub's
# rule, above), and the name or id of each <a name=...>/<a id=...>.
# POSIX awk (mawk as on a Debian minbase, gawk): no intervals, no gensub.
md_scan() {
    awk -v mode="$1" '
    function slug(s,    t, out, i, c) {
        # The text GitHub renders: [text](url) and ![alt](url) -> text.
        while (match(s, /!?\[[^]]*\]\([^)]*\)/)) {
            t = substr(s, RSTART, RLENGTH)
            sub(/^!?\[/, "", t)
            sub(/\]\(.*$/, "", t)
            s = substr(s, 1, RSTART - 1) t substr(s, RSTART + RLENGTH)
        }
        s = tolower(s)
        # Unicode dashes are punctuation too (UTF-8 of U+2014 and U+2013).
        gsub("\342\200\224", "", s)
        gsub("\342\200\223", "", s)
        out = ""
        for (i = 1; i <= length(s); i++) {
            c = substr(s, i, 1)
            if (c == " ")
                out = out "-"
            else if (index("abcdefghijklmnopqrstuvwxyz0123456789_-", c) || c > "~")
                out = out c
        }
        return out
    }
    # Fenced code: ``` or ~~~ (indented too, as inside a list item) opens,
    # the same three characters close.
    {
        l = $0
        sub(/^[ \t]*/, "", l)
        f3 = substr(l, 1, 3)
    }
    fence != "" {
        if (f3 == fence)
            fence = ""
        next
    }
    f3 == "```" || f3 == "~~~" {
        fence = f3
        next
    }
    mode == "anchors" {
        if (match($0, /<a (name|id)="[^"]*"/)) {
            t = substr($0, RSTART, RLENGTH)
            sub(/^<a (name|id)="/, "", t)
            sub(/"$/, "", t)
            print t
        }
        if ($0 !~ /^ ? ? ?#+([ \t]|$)/)
            next
        h = $0
        sub(/^ */, "", h)
        n = match(h, /[^#]/) - 1
        if (n < 0)
            n = length(h)
        if (n > 6)
            next
        h = substr(h, n + 1)
        sub(/^[ \t]+/, "", h)
        sub(/[ \t]+#+[ \t]*$/, "", h)
        sub(/[ \t]+$/, "", h)
        gsub(/`/, "", h)
        a = slug(h)
        if (a in seen) {
            seen[a]++
            a = a "-" seen[a]
        } else
            seen[a] = 0
        print a
        next
    }
    mode == "links" {
        s = $0
        if (s ~ /^[ \t]*$/) {
            open = 0
            next
        }
        # A code span may run on from the line before (same paragraph).
        if (open)
            s = "`" s
        open = gsub(/`/, "`", s) % 2
        gsub(/`[^`]*`/, "", s)
        if (open)
            sub(/`[^`]*$/, "", s)
        if (match(s, /^ ? ? ?\[[^]]+\]:[ \t]+[^ \t]/)) {
            t = substr(s, RSTART + RLENGTH - 1)
            sub(/[ \t].*$/, "", t)
            print NR "\t" t
            next
        }
        while (match(s, /\]\([^)]*\)/)) {
            t = substr(s, RSTART + 2, RLENGTH - 3)
            s = substr(s, RSTART + RLENGTH)
            print NR "\t" t
        }
    }' "$2"
}

# check_links FILE: one TAP result; each broken link named in a diagnostic.
# Adds each file a link resolves to to $tmp/targets.FILE (for check 2).
nlinks_all=0
check_links() {
    f=$1
    : >"$tmp/bad"
    : >"$tmp/targets.$(echo "$f" | tr / _)"
    md_scan links "$f" >"$tmp/links" || bail_out "awk failed on $f"
    n=0
    dir=$(dirname "$f")
    while IFS='	' read -r line t; do
        n=$((n + 1))
        case $t in
        \<*\>)
            t=${t#<}
            t=${t%>}
            ;;
        esac
        t=${t%% \"*}
        t=${t%% \'*}
        case $t in
        http://* | https://* | mailto:* | ftp://*) continue ;;
        '') echo "$f:$line: an empty link" >>"$tmp/bad"; continue ;;
        //* | [a-zA-Z]*://*) continue ;;
        esac
        path=${t%%#*}
        anchor=
        case $t in *'#'*) anchor=${t#*#} ;; esac
        case $path in
        '') target=$f ;;
        /*) target=${path#/} ;;
        *) target=$dir/$path ;;
        esac
        if [ ! -e "$target" ]; then
            echo "$f:$line: ($t) $target does not exist" >>"$tmp/bad"
            continue
        fi
        echo "$target" >>"$tmp/targets.$(echo "$f" | tr / _)"
        case $t in *'#'*) ;; *) continue ;; esac
        if [ -z "$anchor" ]; then
            echo "$f:$line: ($t) an empty #anchor" >>"$tmp/bad"
            continue
        fi
        case $target in
        *.md)
            md_scan anchors "$target" >"$tmp/anchors" || bail_out "awk failed on $target"
            grep -qxF -e "$anchor" "$tmp/anchors" ||
                echo "$f:$line: ($t) no heading of $target has the anchor #$anchor" >>"$tmp/bad"
            ;;
        *)
            case $anchor in
            L[0-9]*) ;;
            *) echo "$f:$line: ($t) #$anchor points into $target, which is not Markdown" >>"$tmp/bad" ;;
            esac
            ;;
        esac
    done <"$tmp/links"
    nlinks_all=$((nlinks_all + n))
    if [ -s "$tmp/bad" ]; then
        fail "every relative link of $f resolves ($n links)" "$(cat "$tmp/bad")"
    else
        pass "every relative link of $f resolves ($n links)"
    fi
}

# The anchor rule itself, on headings whose GitHub anchors are known.
cat >"$tmp/h.md" <<'EOF'
# Network bench and delay proxy (netbench, proxy)
## How far can the database be?
### `run.statements`: prepared or unnamed
## Scale-out: parts
```sh
# a comment in code, not a heading
```
## Scale-out: parts
#### A [link](x.md) and **bold**, _under_score_ ##
EOF
is "$(md_scan anchors "$tmp/h.md" | tr '\n' ' ')" \
    "network-bench-and-delay-proxy-netbench-proxy how-far-can-the-database-be runstatements-prepared-or-unnamed scale-out-parts scale-out-parts-1 a-link-and-bold-_under_score_ " \
    "anchors follow GitHub's rule (lowercase, punctuation out, spaces to -, repeats -1)"
# shellcheck disable=SC2016 # backticks in the Markdown, not the shell
printf '%s\n' 'See [a](a.md) and `[not](code.md)`, [b](b.md#x "title").' \
    '```' '[not](fenced.md)' '```' 'A span `that runs' 'on [not](span.md)` then [c](c.md).' \
    '[ref]: d.md' >"$tmp/l.md"
is "$(md_scan links "$tmp/l.md" | tr '\t\n' ': ')" '1:a.md 1:b.md#x "title" 6:c.md 7:d.md ' \
    "links are found outside code only"

# --- 1. links --------------------------------------------------------------------
files="README.md deploy/README.md"
for f in docs/*.md; do
    files="$files $f"
done
for f in $files; do
    if [ -f "$f" ]; then
        check_links "$f"
    else
        fail "every relative link of $f resolves" "$f is missing"
    fi
done
ok "$([ "$nlinks_all" -ge 50 ]; echo $?)" "the pages have their links ($nlinks_all)"

# --- 2. README.md leads to every page of docs/ --------------------------------
missing=
for d in docs/*.md docs/tpccbench.1; do
    grep -qxF -e "./$d" "$tmp/targets.README.md" || grep -qxF -e "$d" "$tmp/targets.README.md" ||
        missing="$missing $d"
done
is "$missing" "" "README.md links to every page of docs/ and the man page"

# --- 3. every config key is in docs/ --------------------------------------------
# The key table (src/core/config.c), read as tests/t/0015-install.sh reads it.
keys=$(sed -n 's/^ *\(KEY(\|{ \)"\([a-z_.]*\)", *K_.*/\2/p' "$root/src/core/config.c")
nkeys=$(echo "$keys" | wc -w)
ok "$([ "$nkeys" -gt 30 ]; echo $?)" "the key table has its keys ($nkeys)"
missing=
for k in $keys; do
    grep -qwF -e "$k" docs/*.md || missing="$missing $k"
done
if [ -z "$missing" ]; then
    pass "docs/ names every config key in full ($nkeys)"
else
    fail "docs/ names every config key in full ($nkeys)" \
        "not in any docs/*.md:$missing" "add each to the table of docs/config.md"
fi

# --- 4. README.md ---------------------------------------------------------------
lines=$(wc -l <README.md | tr -d ' ')
if [ "$lines" -le "$readme_max" ]; then
    pass "README.md is at most $readme_max lines ($lines)"
else
    fail "README.md is at most $readme_max lines ($lines)" \
        "move reference text into a page of docs/ and link to it"
fi
is "$(grep '^## ' README.md | head -n 2 | tr '\n' '|')" \
    "## Two commands (fresh Debian 12, as root)|## A 5-minute tour|" \
    "README.md begins with the two commands, then the 5-minute tour"

done_testing
