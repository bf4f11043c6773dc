// Runs in the worker threads of the hashing pool (bcrypt) and of the estimating pool (the password
// rule's estimate of how easy a new password is to guess): that work never runs on the main thread.
import { createHmac } from 'node:crypto';
import { readlinkSync, writeFileSync } from 'node:fs';
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
} catch {
  // Not Linux (no /proc/thread-self) or not allowed to renice: the thread keeps the normal priority.
}

/**
 * bcrypt reads only 72 bytes, so the NFKC form of the password is first condensed with
 * HMAC-SHA384 under the pepper; base64 keeps it at 64 ASCII bytes with no NUL.
 * @param {string} password
 * @param {string} pepper
 */
function prehash(password, pepper) {
  return createHmac('sha384', pepper).update(password.normalize('NFKC'), 'utf8').digest('base64');
}

/** @type {Promise<(password: string, context: object) => string> | undefined} */
let judging;

/**
 * The password rule with its estimator (zxcvbn-ts), loaded on the thread's first estimate: ranking
 * the dictionaries takes about 0.3 s and holds about 65 MB, and an estimate 10 ms (up to 100 ms
 * for hostile input), too long for the event loop. Only the estimating pool's thread ever loads
 * it. The gateway's build bundles the validators into this worker; run from the TypeScript
 * sources (tests, development), tsx compiles them on import.
 */
function passwordJudge() {
  judging ??= (async () => {
    if (import.meta.url.endsWith('/src/credentials/hash-worker.js')) (await import('tsx/esm/api')).register();
    const [{ judgePassword }, { passwordEstimator }] = await Promise.all([
      import('@accounts/validators'),
      import('@accounts/validators/password-estimator'),
    ]);
    const estimator = passwordEstimator();
    return (password, context) => judgePassword(password, /** @type {any} */ (context), estimator);
  })();
  return judging;
}

/** @type {string | undefined} */
let named;

/**
 * Names this thread after its pool on its first task (`hashing`, `estimating`), so `top -H`, `ps -L`
 * and the benchmark's profile can tell the threads' CPU apart. Linux only; elsewhere skipped.
 * @param {string} name
 */
function nameThread(name) {
  if (named) return;
  named = name;
  try {
    writeFileSync('/proc/thread-self/comm', name);
  } catch {
    // Not Linux: the thread keeps its name.
  }
}

/** Milliseconds since the epoch, comparable with the main thread's (for the pool's observer). */
const now = () => performance.timeOrigin + performance.now();

/**
 * A task with `timed` set answers `{ value, began, ended }`: when this thread took it up and
 * finished it, so the pool can tell time spent waiting from time spent hashing.
 * @param {{ timed?: boolean } & Parameters<typeof work>[0]} task
 */
export default function run(task) {
  if (!task.timed) return work(task);
  const began = now();
  return Promise.resolve(work(task)).then((value) => ({ value, began, ended: now() }));
}

/**
 * `hashCode` and `verifyCode` take a recovery code's keyed digest (64 hex digits: within bcrypt's
 * 72 bytes, already peppered), so no pre-hash is needed.
 * @param {{ op: 'hash', password: string, pepper: string, cost: number }
 *   | { op: 'judge', password: string, context: object }
 *   | { op: 'verify', password: string, peppers: string[], hash: string, padToCost?: number }
 *   | { op: 'hashCode', digest: string, cost: number }
 *   | { op: 'verifyCode', digest: string, hash: string }
 *   | { op: 'thread' }} task
 */
function work(task) {
  nameThread(task.op === 'judge' ? 'estimating' : 'hashing');
  switch (task.op) {
    case 'hash':
      return bcrypt.hashSync(prehash(task.password, task.pepper), task.cost);
    case 'verify': {
      // Several peppers only for a hash made before pepper ids (password-hashing.ts, legacyPeppers).
      const ok = task.peppers.some((pepper) => bcrypt.compareSync(prehash(task.password, pepper), task.hash));
      // A hash of a lower cost c0 than the current c checks faster than the dummy hash of an
      // unknown email, which would tell the two apart. One bcrypt of each cost c0 … c−1 adds
      // 2^c0 + … + 2^(c−1) = 2^c − 2^c0 rounds: both paths then cost 2^c, whatever the outcome.
      for (let cost = bcrypt.getRounds(task.hash); cost < (task.padToCost ?? 0); cost++) bcrypt.hashSync('pad', cost);
      return ok;
    }
    case 'hashCode':
      return bcrypt.hashSync(task.digest, task.cost);
    case 'verifyCode':
      return bcrypt.compareSync(task.digest, task.hash);
    case 'judge':
      return passwordJudge().then((judge) => judge(task.password, task.context));
    case 'thread':
      return threadId;
    default:
      throw new Error('unknown hashing task');
  }
}
