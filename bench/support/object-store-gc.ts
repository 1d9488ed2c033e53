import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { env } from 'node:process';

const CEPH_CONF = join(env.SHELF_OBJECTSTORE_DIR || '/tmp/shelf-objectstore', 'ceph.conf');

/**
 * Collects the local gateway's garbage now (memstore holds deleted objects in RAM until then) and
 * says through `log` when some is left: gc skips shards locked by a radosgw-admin that was killed
 * mid-run (the lock outlives it by up to an hour), and says nothing.
 */
export function collectGatewayGarbage(log: (line: string) => void): void {
  try {
    execFileSync('radosgw-admin', ['-c', CEPH_CONF, 'gc', 'process', '--include-all'], { stdio: 'ignore' });
    const left = execFileSync('radosgw-admin', ['-c', CEPH_CONF, 'gc', 'list', '--include-all'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
    if (left.includes('"oid"'))
      log(
        '  (garbage left after gc process: a gc shard is locked, see `rados -p default.rgw.log --namespace gc lock info gc.N gc_process`; memstore may fill)',
      );
  } catch {
    log('  (radosgw-admin gc process failed; memstore may fill)');
  }
}
