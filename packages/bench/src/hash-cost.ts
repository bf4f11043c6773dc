import bcrypt from 'bcryptjs';

// The time of one bcrypt hash at each cost on one thread, as the hashing workers run it.
// CPU time is reported beside wall time: it barely moves when other processes share the cores,
// so a busy machine shows in the gap between the two. Run: `cd packages/bench && npx pnpm run hash-cost`.

const ROUNDS = Number(process.env.BENCH_HASH_ROUNDS ?? 7);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log('cost  wall (median)  CPU (median)  hashes/s per thread (by CPU)');
for (const cost of [10, 11, 12]) {
  const wall: number[] = [];
  const cpu: number[] = [];
  bcrypt.hashSync('warm-up password', cost);
  for (let i = 0; i < ROUNDS; i++) {
    const [t0, c0] = [performance.now(), process.cpuUsage()];
    bcrypt.hashSync(`a password of ordinary length ${i}`, cost);
    const c = process.cpuUsage(c0);
    wall.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
  }
  const cpuMs = median(cpu);
  console.log(
    `${String(cost).padEnd(5)} ${median(wall).toFixed(0).padStart(8)} ms  ${cpuMs.toFixed(0).padStart(8)} ms  ${(1000 / cpuMs).toFixed(1).padStart(8)}`,
  );
}
