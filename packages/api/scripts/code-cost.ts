import { createHasher, RECOVERY_CODE_COST } from '../src/credentials/password-hashing.js';
import { createVault, newSecretKey } from '../src/kernel/vault.js';

// What a recovery code costs the hashing pool, beside a password: issuing ten, and a wrong code
// compared with ten (the most an attempt costs). `npx tsx scripts/code-cost.ts [password cost]`.
const passwordCost = Number(process.argv[2] ?? 11);
const hasher = await createHasher({ cost: passwordCost, pepper: 'code-cost' });
const vault = createVault(Buffer.from(newSecretKey(), 'hex'), [], hasher);
const ms = async (run: () => Promise<unknown>) => {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const began = performance.now();
    await run();
    times.push(performance.now() - began);
  }
  return times.sort((a, b) => a - b)[2]!.toFixed(0);
};
try {
  const password = await hasher.hash('a password of some length');
  const codes = await Promise.all(Array.from({ length: 10 }, (_, i) => vault.hashCode(`user\ncode${i}`)));
  console.log(`hashing threads: ${hasher.stats().workers}; median of 5 runs, wall time`);
  console.log(
    `a password checked (cost ${passwordCost}):      ${await ms(() => hasher.verify('a wrong password', password))} ms`,
  );
  console.log(
    `a code checked once (cost ${RECOVERY_CODE_COST}):       ${await ms(() => vault.findCode('user\nwrong', codes.slice(0, 1)))} ms`,
  );
  console.log(`a wrong code against ten:          ${await ms(() => vault.findCode('user\nwrong', codes))} ms`);
  console.log(
    `ten codes issued:                  ${await ms(() => Promise.all(codes.map((_, i) => vault.hashCode(`user\nnew${i}`))))} ms`,
  );
} finally {
  await hasher.close();
}
