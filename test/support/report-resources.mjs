// Preloaded into a `cadre` process (`node --import <this file> cadre.mjs ...`) by the tests and
// benchmarks that read the CLI's own peak memory and CPU: prints them as one JSON line on stderr at
// exit. The shipped executable has no such switch.
process.on('exit', () => {
  const r = process.resourceUsage();
  process.stderr.write(
    `${JSON.stringify({ cadreResources: { maxRSSKb: r.maxRSS, userUs: r.userCPUTime, systemUs: r.systemCPUTime } })}\n`,
  );
});
