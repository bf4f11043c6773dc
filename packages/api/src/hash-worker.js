// Runs in the hashing pool's worker threads: all bcrypt work happens here, never on the main thread.
import { createHmac } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { threadId } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

// With one hashing thread per core, the hashing threads would take CPU time from the event loop
// under load, and every cheap request (health checks, sign-out, refusals) would wait. On Linux a
// thread has its own nice value: lowered here, the event loop always runs first and hashing gets
// all the rest. Elsewhere this is skipped.
try {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (tid > 0) setPriority(tid, 10);
} catch {}

/**
 * bcrypt reads only 72 bytes, so the NFKC form of the password is first condensed with
 * HMAC-SHA384 under the pepper; base64 keeps it at 64 ASCII bytes with no NUL.
 * @param {string} password
 * @param {string} pepper
 */
function prehash(password, pepper) {
  return createHmac('sha384', pepper).update(password.normalize('NFKC'), 'utf8').digest('base64');
}

/**
 * @param {{ op: 'hash', password: string, pepper: string, cost: number }
 *   | { op: 'verify', password: string, pepper: string, hash: string, padToCost?: number }
 *   | { op: 'thread' }} task
 */
export default function run(task) {
  switch (task.op) {
    case 'hash':
      return bcrypt.hashSync(prehash(task.password, task.pepper), task.cost);
    case 'verify': {
      const ok = bcrypt.compareSync(prehash(task.password, task.pepper), task.hash);
      // A hash of a lower cost c0 than the current c checks faster than the dummy hash of an
      // unknown email, which would tell the two apart. One bcrypt of each cost c0 … c−1 adds
      // 2^c0 + … + 2^(c−1) = 2^c − 2^c0 rounds: both paths then cost 2^c, whatever the outcome.
      for (let cost = bcrypt.getRounds(task.hash); cost < (task.padToCost ?? 0); cost++) bcrypt.hashSync('pad', cost);
      return ok;
    }
    case 'thread':
      return threadId;
    default:
      throw new Error('unknown hashing task');
  }
}
