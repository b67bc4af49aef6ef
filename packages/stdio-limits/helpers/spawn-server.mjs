// The spawn server of @wharf/stdio-limits (see src/spawn-server.ts): a small Node process that
// starts processes for its parent and hands their stdio back over the IPC channel, so that the
// parent (a worker of several hundred MiB) never forks itself. Forking copies the forking
// process's page tables: tens of milliseconds of a big worker's event loop per script, well under
// one here. When its parent goes, it ends the processes it started, then exits.
//
// Messages in: { type: 'spawn', id, file, args, cwd?, env, detached, stdin, cgroup? }.
// Messages out, per id, in this order: 'stdin' (with the handle, when asked), 'stdout' and 'stderr'
// (each with its handle), 'spawned' { pid }, later 'exit' { code, signal }; or 'error'
// { message, code } when the process could not be started.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';

/**
 * What this process started and may still have to end: per request id, the pid, whether it
 * leads a process group of its own, and the cgroup it entered. Kept after the process exits
 * while its group (`sleep 30 &`) or cgroup still holds something: the parent ends those.
 */
const started = new Map();
/** A cgroup the parent created (see src/process-cgroup.ts): nothing else is written to. */
const CGROUP_PATH = /^\/.+\/wharf-\d+-[0-9a-f-]{36}$/;

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
  if (child.pid !== undefined) {
    const cgroup =
      typeof message.cgroup === 'string' && CGROUP_PATH.test(message.cgroup) ? message.cgroup : undefined;
    const marker = message.env?.WHARF_SPAWN_HELPER;
    started.set(id, {
      pid: child.pid,
      detached: message.detached === true,
      cgroup,
      exited: false,
      marker: typeof marker === 'string' ? `WHARF_SPAWN_HELPER=${marker}` : undefined,
    });
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
  child.once('exit', (code, signal) => {
    send({ type: 'exit', id, code, signal });
    const entry = started.get(id);
    if (entry === undefined) return;
    entry.exited = true;
    if (!leftBehind(entry)) started.delete(id);
    else sweep ??= setInterval(forgetEnded, 1_000).unref();
  });
});

/**
 * Whether the process group `pgid` is still the one this process started: a member carries
 * the request's marker in its environment. Once a group has emptied its id can be taken by any
 * new group (pids wrap around, at 32768 on many machines), and signalling that one would end an
 * unrelated program. Without `/proc` (not Linux), or without a marker, nothing can be checked.
 */
function stillOurGroup(pgid, marker) {
  if (marker === undefined) return true;
  let names;
  try {
    names = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // stat: pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      if (readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(marker)) return true;
    } catch {
      // exited meanwhile, or not readable
    }
  }
  return false;
}

/**
 * Whether a process's group or cgroup still holds something after it exited. Right at its exit
 * the group cannot have been reused (its id stays taken while a member lives); later (`verify`)
 * its members must still carry the marker.
 */
function leftBehind(entry, verify = false) {
  if (entry.detached) {
    try {
      process.kill(-entry.pid, 0);
      if (!verify || stillOurGroup(entry.pid, entry.marker)) return true;
    } catch {
      // the group is empty
    }
  }
  if (entry.cgroup === undefined) return false;
  try {
    return /^populated 1$/m.test(readFileSync(`${entry.cgroup}/cgroup.events`, 'utf8'));
  } catch {
    return false;
  }
}

let sweep;
/** Forgets groups that have emptied since: their ids may be reused. */
function forgetEnded() {
  for (const [id, entry] of started) if (entry.exited && !leftBehind(entry, true)) started.delete(id);
  if (![...started.values()].some((entry) => entry.exited)) {
    clearInterval(sweep);
    sweep = undefined;
  }
}

/** Blocks for `ms` (this process has nothing else to do while it ends what it started). */
function pause(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Ends everything it started that still runs: each process group (a process that shares this
 * one's group, only itself), and each cgroup whole (`cgroup.kill`, else its processes one by
 * one), then removes the emptied cgroups. Nobody is left to read their output or report
 * their exit.
 */
function endStarted() {
  for (const entry of started.values()) {
    try {
      if (entry.detached) {
        // A group that emptied since may now be another program's: only one still ours is ended.
        if (!entry.exited || stillOurGroup(entry.pid, entry.marker)) process.kill(-entry.pid, 'SIGKILL');
      } else if (!entry.exited) process.kill(entry.pid, 'SIGKILL');
    } catch {
      // gone already
    }
    if (entry.cgroup === undefined) continue;
    try {
      writeFileSync(`${entry.cgroup}/cgroup.kill`, '1');
    } catch {
      try {
        for (const pid of readFileSync(`${entry.cgroup}/cgroup.procs`, 'utf8').split('\n').filter(Boolean))
          process.kill(Number(pid), 'SIGKILL');
      } catch {
        // removed already
      }
    }
  }
  // A killed process holds its cgroup until it is reaped: try for up to a second.
  for (const entry of started.values()) {
    if (entry.cgroup === undefined) continue;
    for (let tries = 0; tries < 40; tries++) {
      try {
        rmdirSync(entry.cgroup);
        break;
      } catch (error) {
        if (error.code !== 'EBUSY') break;
        pause(25);
      }
    }
  }
  started.clear();
}

// The parent is gone (exited, killed): it can no longer read, signal or reap what this process
// started for it, so that is ended too (a restarted parent would run those scripts again), and
// so is this process.
const owner = process.ppid;
let ending = false;
function ownerGone() {
  if (ending) return;
  ending = true;
  endStarted();
  process.exit(0);
}
process.on('disconnect', ownerGone);
// The channel's 'disconnect' is not always emitted when the owner is killed (seen with handles
// still in flight to it): being re-parented (to init or a subreaper) says the same for sure.
setInterval(() => {
  if (process.ppid !== owner) ownerGone();
}, 250).unref();

// A Ctrl-C reaches the terminal's whole process group, and a service manager's stop every process
// of the service: the parent decides what its processes do then (a worker drains them), so the
// server, which it would lose them with, stays until the parent goes.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);
