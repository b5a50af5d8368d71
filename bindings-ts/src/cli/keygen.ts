// `beacon keygen <name>`: an ECDSA P-256 key pair for signing packages.
import * as fs from 'fs';
import * as path from 'path';
import { ParsedArgs, UsageError } from './args';
import { CliIo } from './io';

export async function keygenCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const base = path.resolve(args.positionals[0].replace(/\.(pem|pub)$/, ''));
  const privateFile = `${base}.pem`;
  const publicFile = `${base}.pub`;
  if (!fs.existsSync(path.dirname(base))) throw new UsageError(`directory does not exist: ${path.dirname(base)}`, false);
  for (const f of [privateFile, publicFile]) {
    if (fs.existsSync(f)) throw new UsageError(`${f} exists; not overwriting a key`, false);
  }
  const { generateKeyPair } = await import('../compiler/light');
  const keys = generateKeyPair();
  // The private key is readable by its owner only; 'wx' fails rather than replace a file that
  // appeared meanwhile.
  fs.writeFileSync(privateFile, keys.privatePem, { mode: 0o600, flag: 'wx' });
  fs.writeFileSync(publicFile, keys.publicPem, { flag: 'wx' });
  // Firmware takes trusted keys as hex in CONFIG_BEACON_TRUSTED_KEYS: the uncompressed point.
  io.err(
    `${path.relative(process.cwd(), privateFile) || privateFile}: private key, ECDSA P-256 (keep it secret; beacon build --sign)\n` +
      `${path.relative(process.cwd(), publicFile) || publicFile}: public key ${keys.id} (what devices trust: beacon run --trust)\n` +
      `firmware: CONFIG_BEACON_TRUSTED_KEYS="${keys.trustedKeyHex}"\n`,
  );
  return 0;
}
