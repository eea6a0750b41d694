/**
 * A command run on a real terminal: stdin and stderr on a pseudo-terminal (python3's `pty`, so Node
 * sees `isTTY`), stdout a pipe, as when a user runs `mcp-canary init <url> > fleet.json`. When the
 * terminal shows `prompt`, `answer` is typed, once. The terminal's text and stdout come back apart.
 */
import { runToEnd } from './child.ts';
import { requireTool } from './tools.ts';

const SCRIPT = `
import json, os, pty, select, subprocess, sys
prompt, answer = sys.argv[1].encode(), sys.argv[2].encode()
master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[3:], stdin=slave, stderr=slave, stdout=subprocess.PIPE)
os.close(slave)
tty, out, typed = b'', b'', False
streams = [master, p.stdout.fileno()]
while streams:
    ready, _, _ = select.select(streams, [], [], 60)
    if not ready:
        break
    for fd in ready:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b''
        if not chunk:
            streams.remove(fd)
            continue
        if fd == master:
            tty += chunk
            if not typed and prompt in tty:
                os.write(master, answer + b'\\n')
                typed = True
        else:
            out += chunk
p.wait()
print(json.dumps({'code': p.returncode, 'stdout': out.decode('utf8', 'replace'), 'terminal': tty.decode('utf8', 'replace'), 'typed': typed}))
`;

export interface OnTerminal {
  readonly code: number;
  readonly stdout: string;
  /** What the terminal showed: stderr, the prompt, the echoed answer (line ends as `\r\n`). */
  readonly terminal: string;
  /** Whether the prompt appeared and the answer was typed. */
  readonly typed: boolean;
}

export async function runOnTerminal(command: readonly string[], prompt: string, answer: string): Promise<OnTerminal> {
  const r = await runToEnd(requireTool('python3'), ['-c', SCRIPT, prompt, answer, ...command], { killAfterMs: 90_000 });
  if (r.code !== 0) throw new Error(`the terminal helper failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as OnTerminal;
}
