// The certificate of the cloud `beacon run` starts for a firmware that syncs over TLS (--target
// bsim): a P-256 key and a self-signed certificate for localhost and 127.0.0.1, made with the
// openssl command (Node has no API that makes X.509 certificates). The firmware is given the
// certificate itself as its CA, as a device is provisioned with its cloud's.
import { spawnSync } from 'child_process';
import * as path from 'path';
import { UsageError } from './args';

export function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const cert = path.join(dir, 'cloud-cert.pem');
  const key = path.join(dir, 'cloud-key.pem');
  const r = spawnSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert,
  ], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) {
    throw new UsageError(`the run's cloud needs a certificate for TLS, made with openssl: ${r.error?.message ?? r.stderr.trim()} (apt-get install openssl)`, false);
  }
  return { cert, key };
}
