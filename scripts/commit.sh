#!/bin/sh
# Print the commit this tree holds, for `tpccbench --version` and run.json:
#   1. .commit, when `git archive` filled it in (.gitattributes: export-subst);
#   2. else git, when this folder is the top of a git work tree of its own (an
#      unpacked archive inside some other repository must not take its commit);
#   3. else "unknown".
cd "$(dirname "$0")/.." || { echo unknown; exit 0; }
c=$(sed -n '1s/^\([0-9a-f]\{4,64\}\)$/\1/p' .commit 2>/dev/null)
if [ -z "$c" ] && command -v git >/dev/null 2>&1; then
    top=$(git rev-parse --show-toplevel 2>/dev/null) &&
        [ "$(cd "$top" && pwd -P)" = "$(pwd -P)" ] &&
        c=$(git rev-parse --short HEAD 2>/dev/null)
fi
echo "${c:-unknown}"
