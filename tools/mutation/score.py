"""Raw and marked mutation scores from Stryker.NET JSON reports of the same code (tools/mutation/run.sh).

    python3 tools/mutation/score.py RAW.json[,RAW2.json] MARKS.json [TIMEOUTS.json]

raw:    a run on a copy whose '// Stryker' comment lines are blanked (line numbers kept), every mutant tested;
marks:  a run on the real tree with --test-case-filter (one fast test), only to learn which mutants the marks ignore.
The marked score is the raw run's results without the mutants the marks ignore.
timeouts: optionally, a run of just the raw run's timeouts (the line this script prints) on a quiet machine; a timeout
it decides (killed or survived) takes that status, one it does not decide stays a timeout.
"""
import json, sys, collections

STRYKER_FILTERS = ("Removed by block already covered filter", "Removed by mutate filter")

sources = {}

def load(path):
    report = json.load(open(path))
    out = {}
    for name, f in report["files"].items():
        rel = name.split("/src/", 1)[-1]
        # The raw copy's text, loaded first: the spans for re-running its timeouts are offsets into it, and the marks
        # run's text differs (its '// Stryker' lines are not blanked).
        sources.setdefault(rel, f.get("source", ""))
        for m in f["mutants"]:
            loc = m["location"]
            key = (rel, loc["start"]["line"], loc["start"]["column"], loc["end"]["line"], loc["end"]["column"],
                   m["mutatorName"], m.get("replacement", ""))
            out[key] = m
    return out

# A project measured in parts (each with its own -m) gives one raw report per part, separated by commas.
raw = {}
for part in sys.argv[1].split(","):
    raw.update(load(part))
marks = load(sys.argv[2])
rerun = load(sys.argv[3]) if len(sys.argv) > 3 else {}
decided = 0
for k, m in raw.items():
    again = rerun.get(k, {}).get("status")
    if m["status"] == "Timeout" and again in ("Killed", "Survived"):
        raw[k] = dict(m, status=again)
        decided += 1
if rerun:
    print(f"timeouts decided by the re-run: {decided}")
# Only the files the raw run mutated: a project measured in parts is listed whole by its marks run.
raw_files = {k[0] for k in raw}
marked = {k: m.get("statusReason", "") for k, m in marks.items()
          if k[0] in raw_files and m["status"] == "Ignored" and m.get("statusReason", "") not in STRYKER_FILTERS}
# A mark moved after the raw run shifts the lines (and perhaps columns) below it: such a marked mutant is matched to
# the raw one of the same file, mutator and replacement text when there is exactly one.
by_text = collections.defaultdict(list)
for k in raw:
    by_text[(k[0], k[5], k[6])].append(k)
for k in [k for k in marked if k not in raw]:
    candidates = by_text[(k[0], k[5], k[6])]
    if len(candidates) == 1:
        marked[candidates[0]] = marked.pop(k)
unmatched = [k for k in marked if k not in raw]

def score(c):
    det = c["Killed"] + c["Timeout"]; tot = det + c["Survived"] + c["NoCoverage"]
    return f"{100 * det / tot:.2f}% ({det} of {tot})" if tot else "n/a"

c_raw, c_marked, c_hidden = collections.Counter(), collections.Counter(), collections.Counter()
for k, m in raw.items():
    c_raw[m["status"]] += 1
    if k in marked:
        c_hidden[m["status"]] += 1
    else:
        c_marked[m["status"]] += 1

keys = ["Killed", "Timeout", "Survived", "NoCoverage", "CompileError", "Ignored"]
print("raw    :", {s: c_raw[s] for s in keys}, "score", score(c_raw))
print("marked :", {s: c_marked[s] for s in keys}, "score", score(c_marked))
print("marked mutants:", len(marked), "of which raw statuses", dict(c_hidden), "unmatched", len(unmatched))
print("marks (comment lines) ignoring mutants:", len({(k[0], r) for k, r in marked.items()}))
print()
for k in sorted(k for k, m in raw.items() if m["status"] in ("Survived", "NoCoverage", "Timeout")):
    m = raw[k]
    tag = "MARKED" if k in marked else "      "
    print(f"{m['status']:10} {tag} {k[0]}:{k[1]}:{k[2]} {k[5]} -> {k[6][:70]!r}")
print()
print("marked and killed in the raw run (a mark that hides a killable mutant):")
for k in sorted(k for k in marked if k in raw and raw[k]["status"] in ("Killed",)):
    print(f"  {k[0]}:{k[1]}:{k[2]} {k[5]} -> {k[6][:70]!r}  [{marked[k][:60]}]")
for k in unmatched:
    print("UNMATCHED", k)

# Stryker.NET's --mutate takes a span of characters after a file's glob: one pattern per timeout re-runs just it.
def span(k):
    lines = sources[k[0]].split("\n")
    start = sum(len(l) + 1 for l in lines[:k[1] - 1]) + k[2] - 1
    end = sum(len(l) + 1 for l in lines[:k[3] - 1]) + k[4] - 1
    return f"-m '**/{k[0].split('/', 1)[1]}{{{start}..{end}}}'"

timeouts = sorted(k for k, m in raw.items() if m["status"] == "Timeout")
if timeouts:
    print()
    print("re-run the timeouts alone (on the raw copy, nothing else busy):")
    print("  dotnet stryker --concurrency 1 -r json " + " ".join(span(k) for k in timeouts))
