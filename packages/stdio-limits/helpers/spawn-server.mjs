// The spawn server of @wharf/stdio-limits (see src/spawn-server.ts): a small Node process that
// starts processes for its parent and hands their stdio back over the IPC channel, so that the
// parent (a worker of several hundred MiB) never forks itself. Forking copies the forking
// process's page tables: tens of milliseconds of a big worker's event loop per script, well under
// one here. It exits when its parent goes.
//
// Messages in: { type: 'spawn', id, file, args, cwd?, env, detached, stdin }.
// Messages out, per id, in this order: 'stdin' (with the handle, when asked), 'stdout' and 'stderr'
// (each with its handle), 'spawned' { pid }, later 'exit' { code, signal }; or 'error'
// { message, code } when the process could not be started.
import { spawn } from 'node:child_process';

/** Keeps Node from reading a stream this process only passes on: nothing is read before it is sent. */
function holdStream(stream) {
  if (stream === null) return;
  stream.pause();
  stream._handle?.readStop?.();
  if (stream._handle) stream._handle.reading = false;
}

function send(message, handle) {
  if (process.connected) process.send(message, handle);
}

process.on('message', (message) => {
  if (message?.type !== 'spawn') return;
  const { id } = message;
  let child;
  try {
    child = spawn(message.file, message.args, {
      cwd: message.cwd,
      env: message.env,
      detached: message.detached,
      stdio: [message.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    send({ type: 'error', id, message: error.message, code: error.code });
    return;
  }
  // Synchronously, before this process's event loop can read from them.
  holdStream(child.stdout);
  holdStream(child.stderr);
  child.once('error', (error) => {
    if (child.pid === undefined) send({ type: 'error', id, message: error.message, code: error.code });
  });
  child.once('spawn', () => {
    if (child.stdin) send({ type: 'stdin', id }, child.stdin);
    send({ type: 'stdout', id }, child.stdout);
    send({ type: 'stderr', id }, child.stderr);
    send({ type: 'spawned', id, pid: child.pid });
  });
  child.once('exit', (code, signal) => send({ type: 'exit', id, code, signal }));
});

// The parent is gone (exited, killed): so is its server. The processes it started run on in
// their own process groups, as they would have had the parent started them.
process.on('disconnect', () => process.exit(0));

// A Ctrl-C reaches the terminal's whole process group, and a service manager's stop every process
// of the service: the parent decides what its processes do then (a worker drains them), so the
// server, which it would lose them with, stays until the parent goes.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);
