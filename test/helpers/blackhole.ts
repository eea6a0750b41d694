/**
 * A loopback port whose listener's accept queue is full, so a new connection's SYN is never answered:
 * the TCP handshake that never completes. Node cannot make one (its listen backlog is not that small
 * in practice), so a short python3 script holds it; python3 is on every machine that runs moto_server.
 */
import { spawn } from 'node:child_process';
import { requireTool } from './tools.ts';

const SCRIPT = `
import socket, time
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(0)
port = s.getsockname()[1]
fill = []
for i in range(4):
    c = socket.socket(); c.setblocking(False)
    try: c.connect(('127.0.0.1', port))
    except BlockingIOError: pass
    fill.append(c)
print(port, flush=True)
time.sleep(60)
`;

export interface Blackhole {
  readonly port: string;
  kill(): void;
}

export async function startBlackhole(): Promise<Blackhole> {
  const child = spawn(requireTool('python3'), ['-c', SCRIPT], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
  return { port, kill: () => child.kill() };
}
