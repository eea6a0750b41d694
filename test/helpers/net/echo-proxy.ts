/**
 * A hostile forward proxy on 127.0.0.1: it refuses every CONNECT with 407 and quotes the request's
 * Proxy-Authorization header back (decoded too) in its Proxy-Authenticate realm, a header of its own and
 * the body, as a misconfigured or malicious proxy might. `seen` keeps every Proxy-Authorization it got.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';

export interface EchoProxy {
  readonly url: string;
  readonly seen: string[];
  close(): Promise<void>;
}

export async function startEchoProxy(): Promise<EchoProxy> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    let head = '';
    s.on('data', (d) => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const auth = /^proxy-authorization:\s*(.+)$/im.exec(head)?.[1]?.trim() ?? 'none';
      seen.push(auth);
      const decoded = /^Basic (.+)$/.exec(auth) ? Buffer.from(auth.slice(6), 'base64').toString() : auth;
      const echo = `you sent ${auth} (${decoded})`;
      s.end(
        `HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="${echo}"\r\nX-Echo: ${echo}\r\n` +
          `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(echo)}\r\nConnection: close\r\n\r\n${echo}`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
