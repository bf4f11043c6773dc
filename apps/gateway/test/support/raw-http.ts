import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  head: string;
  body: string;
  /** Everything the server wrote, answers after the first included. */
  text: string;
}

/**
 * Writes bytes to the server as they are (no client library fixing them up) and reads the
 * answer until the server closes or the time is up.
 */
export function rawRequest(port: number, request: string | Buffer, timeoutMs = 5000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error('no answer in time')), timeoutMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err) => (chunks.length ? finish() : reject(err)));
    socket.on('close', () => finish());
    socket.write(request);
    function finish() {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body, text });
    }
  });
}
