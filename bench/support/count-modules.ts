/**
 * `node --import bench/support/count-modules.ts <script>`: counts the modules the script loads
 * (files, not node: builtins) and prints `modules loaded: N` on stderr at exit. SHELF_COUNT_MODULES=list
 * also lists them.
 */
import { registerHooks } from 'node:module';

const loaded: string[] = [];
registerHooks({
  load(url, context, next) {
    if (!url.startsWith('node:')) loaded.push(url);
    return next(url, context);
  },
});
process.on('exit', () => {
  if (process.env.SHELF_COUNT_MODULES === 'list') process.stderr.write(`${loaded.join('\n')}\n`);
  process.stderr.write(`modules loaded: ${loaded.length}\n`);
});
