// One bcryptjs hash per task, as the gateway's hashing pool does it.
import bcrypt from 'bcryptjs';

// The gateway hands bcrypt a 64-character base64 HMAC of the password; the same length here.
const INPUT = 'k4Jb9xQ2mV7pL0sT3wZ8nR5cY1hF6dG2aE9uI4oP7qW0tB3vN8mX5zC1jH6gK2lS';

/** @param {{ cost: number }} task */
export default function hash({ cost }) {
  return bcrypt.hashSync(INPUT, cost);
}
