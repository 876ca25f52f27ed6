import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server, type TLSSocket } from 'node:tls';

export interface CertificateFiles {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A client certificate from another CA, which the terminator must refuse. */
  strangerCert: string;
  strangerKey: string;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

/** A CA, a server certificate for localhost and 127.0.0.1, a client certificate it signed, and one it did not. */
export function makeCertificates(): CertificateFiles {
  const dir = mkdtempSync(join(tmpdir(), 'mtls-'));
  const ca = (name: string) => openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.crt`]);
  const signed = (name: string, by: string, extensions: string) => {
    writeFileSync(join(dir, `${name}.ext`), extensions);
    openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`]);
    openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${by}.crt`, '-CAkey', `${by}.key`, '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.crt`]);
  };
  ca('test-ca');
  ca('stranger-ca');
  signed('server', 'test-ca', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  signed('client', 'test-ca', 'extendedKeyUsage=clientAuth\n');
  signed('stranger', 'stranger-ca', 'extendedKeyUsage=clientAuth\n');
  const file = (name: string) => join(dir, name);
  return {
    dir,
    caCert: file('test-ca.crt'),
    serverCert: file('server.crt'),
    serverKey: file('server.key'),
    clientCert: file('client.crt'),
    clientKey: file('client.key'),
    strangerCert: file('stranger.crt'),
    strangerKey: file('stranger.key'),
  };
}

export interface TlsTerminator {
  address: string;
  /** Handshakes refused (no client certificate, or one the CA did not sign). */
  refused(): number;
  close(): Promise<void>;
}

/**
 * TLS in front of a plain TCP service, as a self-hosted Temporal's frontend
 * or its ingress terminates it: the client must present a certificate the CA
 * signed (mutual TLS); the bytes then go to `backend` as they are (gRPC over
 * HTTP/2, announced by ALPN).
 */
export async function startTlsTerminator(certificates: CertificateFiles, backend: string): Promise<TlsTerminator> {
  const [backendHost, backendPort] = [backend.slice(0, backend.lastIndexOf(':')), Number(backend.slice(backend.lastIndexOf(':') + 1))];
  let refused = 0;
  const server: Server = createServer(
    {
      key: readFileSync(certificates.serverKey),
      cert: readFileSync(certificates.serverCert),
      ca: readFileSync(certificates.caCert),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (socket: TLSSocket) => {
      const upstream = connect(backendPort, backendHost);
      socket.pipe(upstream).pipe(socket);
      const end = () => {
        socket.destroy();
        upstream.destroy();
      };
      socket.on('error', end);
      upstream.on('error', end);
      socket.on('close', end);
      upstream.on('close', end);
    },
  );
  server.on('tlsClientError', () => (refused += 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    refused: () => refused,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
