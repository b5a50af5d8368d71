// The compile server's process (compileServer.ts): started detached by a command that compiled
// without one; ends when idle.
import { runServer, serverSocketPath } from './compileServer';

process.title = 'beacon compile server';
const socket = serverSocketPath();
if (socket) {
  runServer(socket).then(
    () => process.exit(0),
    () => process.exit(1),
  );
}
