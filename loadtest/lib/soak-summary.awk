# Summarises loadtest/soak.sh's samples (loadtest/lib/soak-summary.awk, run with awk -F,): per strategy, over the
# samples taken after the warm-up and before the load stopped (until), a markdown table of working set, its least-squares slope, collections, pool bytes
# and throughput, then a coarse table over time with a sparkline of the working set.
#
#   awk -F, -v warmup=SECONDS -v until=SECONDS -v buckets=10 -f loadtest/lib/soak-summary.awk ERRORS_FILE SAMPLES.csv
#
# ERRORS_FILE has one "strategy,requests,errors" line per strategy (wrk's count); SAMPLES.csv is the sampler's CSV:
# timestamp,strategy,elapsed_s,working_set_bytes,gen0,gen1,gen2,pool_in_use_bytes,loh_bytes,requests

function mb(bytes) { return bytes / 1048576 }

FNR == 1 && FILENAME != ARGV[1] { next }            # the CSV's header
FILENAME == ARGV[1] { wrkRequests[$1] = $2; wrkErrors[$1] = $3; next }

{
  gsub(/"/, "")
  s = $2; t = $3 + 0
  if (!(s in total)) { order[++strategies] = s; total[s] = 0 }
  total[s]++
  poolAtEnd[s] = $8 + 0                              # the last sample, after the load stopped
  if (t < warmup || t > until) next
  i = ++n[s]
  T[s, i] = t; W[s, i] = $4 + 0; G0[s, i] = $5 + 0; G1[s, i] = $6 + 0; G2[s, i] = $7 + 0
  P[s, i] = $8 + 0; L[s, i] = $9 + 0; R[s, i] = $10 + 0
}

END {
  split("▁ ▂ ▃ ▄ ▅ ▆ ▇ █", bar, " ")
  print "| strategy | samples after warm-up | req/s | wrk errors | working set MB first → last | min / max MB | slope MB/min | gen0 / gen1 / gen2 during | pool in-use max bytes | pool in-use after load | LOH MB max |"
  print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for (k = 1; k <= strategies; k++) {
    s = order[k]; m = n[s]
    if (m < 2) { printf "| `%s` | %d | | | | | | | | | |\n", s, m; continue }
    sx = sy = sxx = sxy = 0; lo = hi = W[s, 1]; pmax = 0; lmax = 0
    for (i = 1; i <= m; i++) {
      x = T[s, i] / 60; y = mb(W[s, i])
      sx += x; sy += y; sxx += x * x; sxy += x * y
      if (W[s, i] < lo) lo = W[s, i]
      if (W[s, i] > hi) hi = W[s, i]
      if (P[s, i] > pmax) pmax = P[s, i]
      if (L[s, i] > lmax) lmax = L[s, i]
    }
    d = m * sxx - sx * sx
    slope = d == 0 ? 0 : (m * sxy - sx * sy) / d
    span = T[s, m] - T[s, 1]
    rate = span > 0 ? (R[s, m] - R[s, 1]) / span : 0
    printf "| `%s` | %d | %.1f | %s | %.1f → %.1f | %.1f / %.1f | %+.2f | %d / %d / %d | %d | %d | %.1f |\n", \
      s, m, rate, (s in wrkErrors ? wrkErrors[s] : "?"), mb(W[s, 1]), mb(W[s, m]), mb(lo), mb(hi), slope, \
      G0[s, m] - G0[s, 1], G1[s, m] - G1[s, 1], G2[s, m] - G2[s, 1], pmax, poolAtEnd[s], mb(lmax)
  }

  print ""
  printf "Over time, after the warm-up, in %d equal slices per strategy: the mean working set (MB) of each slice, the\n", buckets
  print "gen 2 collections in it, and a sparkline of the working set scaled to that strategy's own min and max."
  print ""
  header = "| strategy | sparkline (own scale) |"; rule = "| --- | --- |"
  for (b = 1; b <= buckets; b++) { header = header " " b " |"; rule = rule " ---: |" }
  print header; print rule
  for (k = 1; k <= strategies; k++) {
    s = order[k]; m = n[s]
    if (m < buckets) continue
    line = ""; spark = ""
    lo = hi = 0
    for (b = 1; b <= buckets; b++) {
      from = int((b - 1) * m / buckets) + 1; to = int(b * m / buckets)
      sum = 0
      for (i = from; i <= to; i++) sum += mb(W[s, i])
      mean[b] = sum / (to - from + 1)
      gen2[b] = G2[s, to] - (from > 1 ? G2[s, from - 1] : G2[s, 1])
      if (b == 1 || mean[b] < lo) lo = mean[b]
      if (b == 1 || mean[b] > hi) hi = mean[b]
    }
    for (b = 1; b <= buckets; b++) {
      level = hi - lo < 0.05 ? 1 : int((mean[b] - lo) / (hi - lo) * 7.999) + 1
      spark = spark bar[level]
      line = line sprintf(" %.0f (%d) |", mean[b], gen2[b])
    }
    printf "| `%s` | %s |%s\n", s, spark, line
  }
}
