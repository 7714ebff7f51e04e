// Throwaway: drive ModelDevice like a paced recorder; print device busy share and dirty per 5 s.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "models/model_device.h"
#include "models/profile.h"
using namespace sd;
int main(int argc, char** argv) {
  std::string prof = argv[1];
  double rate = atof(argv[2]) * 1e6, dur = atof(argv[3]);
  uint64_t seed = argc > 4 ? atoll(argv[4]) : 1;
  std::vector<std::string> sets;
  for (int i = 5; i < argc; ++i) sets.push_back(argv[i]);
  auto p = load_profile(prof, sets);
  if (!p) { fprintf(stderr, "%s\n", p.message().c_str()); return 2; }
  ModelOptions o; o.seed = seed; ModelDevice d(*p, o);
  d.submit({OpKind::Create, 1}, 0);
  const uint64_t blk = 256 * 1024;
  double dt = blk / rate, t = 0, ring = 1 << 20;
  double busy[40] = {}, n[40] = {}, wb[40] = {}, maxlat[40] = {};
  uint64_t i = 0;
  double sample = 0;
  while (t < dur) {
    double due = (i + 1) * dt;  // the block is complete in the ring
    double issue = std::max(due, t);
    Completion c = d.submit({OpKind::Write, 1, i * blk, blk}, issue);
    int b = int(issue / 5);
    if (b < 40) maxlat[b] = std::max(maxlat[b], c.done - issue);
    while (sample < c.done) {
      ModelState s = d.state(sample);
      int k = int(sample / 5);
      if (k < 40) { n[k]++; if (s.device_free_at > sample) busy[k]++; wb[k] += s.dirty_bytes; }
      sample += 0.01;
    }
    t = c.done;
    ++i;
  }
  for (int k = 0; k < 40 && k * 5 < dur; ++k)
    if (n[k]) printf("%3d-%3d s: device busy %3.0f %%, mean dirty+wb %6.0f KiB, longest write %.3f s\n", k * 5, k * 5 + 5, 100 * busy[k] / n[k], wb[k] / n[k] / 1024, maxlat[k]);
}
