// The racing side of test/support/swap-race.ts, in a process of its own (as an agent's Bash is):
// flips each named directory between itself and a symlink, until killed.
import fs from 'node:fs';
import path from 'node:path';

const [project, flipsJson] = process.argv.slice(2);
const flips = JSON.parse(flipsJson);
const at = (name) => path.join(project, name);
for (const [name, target] of Object.entries(flips)) fs.symlinkSync(target, at(`${name}.lnk`));
process.stdout.write('ready\n');
for (;;) {
  for (const name of Object.keys(flips)) {
    try {
      fs.renameSync(at(name), at(`${name}.real`));
      fs.renameSync(at(`${name}.lnk`), at(name));
      fs.renameSync(at(name), at(`${name}.lnk`));
      fs.renameSync(at(`${name}.real`), at(name));
    } catch {
      // A rename lost to a concurrent reader's view changes nothing; flip again.
    }
  }
}
