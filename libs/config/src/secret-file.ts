import { readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

export interface SecretFileOptions<T> {
  /** Makes the value of the file's text; a throw keeps the previous value (and is reported). */
  parse: (text: string) => T;
  /** How often the file is looked at again even when no change event came (a missed event, an NFS mount). */
  pollIntervalMs?: number;
  /** A changed file that could not be read or parsed: the previous value stays in use. Never given the text. */
  onError?: (error: Error) => void;
  /** The file changed and its new value is in use. */
  onChange?: (value: T) => void;
}

/** A value read from a mounted Secret file, current to within a change event or a poll. */
export interface SecretFile<T> {
  current(): T;
  /** Looks at the file now (what the watch and the poll do); true when the value changed. */
  refresh(): boolean;
  close(): void;
}

/**
 * Reads a secret from a file and reads it again when it changes, so a rotated Secret is used
 * without a restart. Kubernetes updates a mounted Secret by swapping the `..data` symlink in the
 * file's directory: the directory is watched (the file's own inode never changes), and a periodic
 * look at the file's modification time, size and inode (through the symlink) catches what the
 * watch missed. The first read must succeed (a throw at start-up); a later unreadable or malformed
 * file keeps the value in use. The file's text is never put in an error message.
 */
export function watchSecretFile<T>(file: string, options: SecretFileOptions<T>): SecretFile<T> {
  const read = (): { value: T; stamp: string } => {
    let stamp: string;
    let text: string;
    try {
      stamp = stampOf(file);
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(`secret file ${file} could not be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    let value: T;
    try {
      value = options.parse(text);
    } catch (error) {
      throw new Error(`secret file ${file} is malformed: ${(error as Error).message}`);
    }
    return { value, stamp };
  };
  let state = read();

  const refresh = (): boolean => {
    let stamp: string;
    try {
      stamp = stampOf(file);
    } catch (error) {
      options.onError?.(error as Error);
      return false;
    }
    if (stamp === state.stamp) return false;
    try {
      state = read();
    } catch (error) {
      options.onError?.(error as Error);
      return false;
    }
    options.onChange?.(state.value);
    return true;
  };

  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path.dirname(file), { persistent: false }, () => refresh());
    watcher.on('error', () => {
      watcher?.close();
      watcher = undefined;
    });
  } catch {
    watcher = undefined; // the poll alone
  }
  const poll = setInterval(refresh, options.pollIntervalMs ?? 10_000);
  poll.unref();

  return {
    current: () => state.value,
    refresh,
    close() {
      clearInterval(poll);
      watcher?.close();
    },
  };
}

/** What changes when the file does: through the symlink, its inode, size and modification time. */
function stampOf(file: string): string {
  const stat = statSync(file);
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}
