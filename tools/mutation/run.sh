#!/usr/bin/env bash
# Mutation scores, raw and marked, for one project (docs/testing.md, "Mutation testing"). Not part of CI: a project
# takes tens of minutes on two cores. Run it from a clean, committed tree on a machine with nothing else busy.
#
#   tools/mutation/run.sh src/Signing|src/Signing.Http [--out DIR] [-- extra stryker options, e.g. -m '**/Transcoding/**']
#
# 1. raw: Stryker on a copy of HEAD whose '// Stryker' comment lines are blanked (so line numbers stay the same),
#    every mutant tested;
# 2. marks: Stryker on the tree as committed, limited to one fast test (--test-case-filter), only to learn which
#    mutants the marks ignore (ignored mutants are decided before any test runs);
# 3. score.py: the raw score, and the marked score (the raw results without the mutants the marks ignore), with
#    every survivor, timeout and marked-but-killed mutant listed.
# Re-run the timeouts it lists on a quiet machine before publishing a score: Stryker counts a timeout as detected.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

project=${1:?usage: tools/mutation/run.sh src/Signing|src/Signing.Http [--out DIR] [-- stryker options]}
shift
case "$project" in
  src/Signing) filter='FullyQualifiedName~PlainWidgetRecognitionTests.The_next_widget_starts' ;;
  src/Signing.Http) filter='FullyQualifiedName~AccessKeysComparisonTests' ;;
  *) echo "Not a project with a stryker-config.json: '$project'." >&2; exit 2 ;;
esac
out=$root/artifacts/mutation/$(basename "$project")
if [ "${1:-}" = --out ]; then out=$(realpath -m "${2:?}"); shift 2; fi
[ "${1:-}" = -- ] && shift
[ -z "$(git status --porcelain -- src tests)" ] || { echo "Commit src/ and tests/ first: the raw run copies HEAD." >&2; exit 2; }

mkdir -p "$out"
copy=$(mktemp -d)/raw
git worktree add --detach "$copy" HEAD >/dev/null
trap 'git worktree remove --force "$copy"' EXIT
sed -i 's|^\s*// Stryker .*$||' $(grep -rl '// Stryker' "$copy/$project" --include='*.cs')

dotnet tool restore >/dev/null
echo "raw run on $(git rev-parse --short HEAD), every mark blanked: $out/raw"
(cd "$copy/$project" && dotnet stryker --concurrency 2 -r json -r html -r cleartext -r dots -O "$out/raw" "$@")
echo "marks run, one test, to list what the marks ignore: $out/marks"
(cd "$project" && dotnet stryker --concurrency 2 -r json -O "$out/marks" --test-case-filter "$filter" "$@" >"$out/marks.log")
python3 tools/mutation/score.py "$out/raw/reports/mutation-report.json" "$out/marks/reports/mutation-report.json" | tee "$out/score.txt"
