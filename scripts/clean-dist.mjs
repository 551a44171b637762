// `npm run build`'s first step: empties dist/, so a source that was deleted or moved leaves no
// compiled copy behind to be shipped (`files` publishes dist/ whole) or found by a test.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

rmSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist'), {
  recursive: true,
  force: true,
});
