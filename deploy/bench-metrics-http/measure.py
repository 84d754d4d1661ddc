"""Start time (exec to the first answered scrape), RSS after 2,000 scrapes, and the scrape time,
for each server binary given; 10 starts each."""
import statistics, subprocess, sys, time, urllib.request, socket

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]

def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"): return int(line.split()[1])

for binary in sys.argv[1:]:
    starts, rss_idle, rss_after, scrape_us = [], [], [], []
    for run in range(10):
        port = free_port()
        began = time.perf_counter()
        process = subprocess.Popen([binary, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}/metrics"
        while True:
            try:
                urllib.request.urlopen(url, timeout=1).read(); break
            except Exception:
                time.sleep(0.002)
        starts.append((time.perf_counter() - began) * 1000)
        rss_idle.append(rss_kib(process.pid))
        if run < 3:
            t = time.perf_counter()
            for _ in range(2000): urllib.request.urlopen(url, timeout=5).read()
            scrape_us.append((time.perf_counter() - t) / 2000 * 1e6)
            rss_after.append(rss_kib(process.pid))
        process.terminate(); process.wait()
    print(f"{binary.split('/')[-1]}: start to first scrape {statistics.median(starts):.1f} ms median ({min(starts):.1f}-{max(starts):.1f}), "
          f"RSS after first scrape {statistics.median(rss_idle)/1024:.1f} MiB, after 2,000 more {statistics.median(rss_after)/1024:.1f} MiB, "
          f"a scrape {statistics.median(scrape_us):.0f} us (urllib, one connection each)")
