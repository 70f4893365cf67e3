import type * as z from './z';
import { isConfigError, type ConfigIssue } from './config-error';
import { createConfigFileWatch } from './config-file-watch';
import { loadConfig, type LoadConfigOptions, type LoadedConfig } from './load-config';

/** Why a reload happened: the file changed, SIGHUP arrived, or `reload()` was called. */
export type ConfigReloadReason = 'file' | 'signal' | 'manual';

/** A new configuration that passed its schema and is now the running one. */
export interface ConfigChange<T> {
  /** The new value. */
  readonly value: T;
  /** The value it replaces. */
  readonly previous: T;
  /** Warnings for the new file (unknown keys under the `warn` policy). */
  readonly warnings: readonly ConfigIssue[];
  /** What triggered the reload. */
  readonly reason: ConfigReloadReason;
  /** The file chosen and why, when the configuration is a directory. */
  readonly selected?: string;
}

/** The emitter SIGHUP comes from (normally `process`). */
export interface SignalSource {
  on(event: 'SIGHUP', listener: () => void): unknown;
  off(event: 'SIGHUP', listener: () => void): unknown;
}

/** Options for {@link watchConfig}. */
export interface WatchConfigOptions<S extends z.ZodType> extends LoadConfigOptions {
  /** The configuration file (may be a symlink, e.g. a ConfigMap key). */
  readonly file: string;
  /** The schema every version of the file must pass. */
  readonly schema: S;
  /** Called with every valid new configuration; the watcher's `current` is already the new value. */
  readonly onChange: (change: ConfigChange<z.output<S>>) => void;
  /** Called when a reload fails (a ConfigError; the running configuration stays) or `onChange` throws. */
  readonly onError: (error: Error, reason: ConfigReloadReason) => void;
  /** Stops watching when aborted. */
  readonly signal?: AbortSignal;
  /** The already loaded configuration; loaded (and checked) by `watchConfig` when absent. */
  readonly initial?: LoadedConfig<z.output<S>>;
  /** Quiet time after the last file event before reloading (default 200 ms). */
  readonly debounceMs?: number;
  /** Fallback poll of the file's identity and size in case a file event is missed (default 5000 ms; 0 = off). */
  readonly pollIntervalMs?: number;
  /** Where SIGHUP comes from (default `process`); `null` disables SIGHUP reloads. */
  readonly signals?: SignalSource | null;
}

/** A running configuration that follows its file. */
export interface ConfigWatcher<T> {
  /** The running configuration. */
  readonly current: T;
  /** Warnings of the running configuration. */
  readonly warnings: readonly ConfigIssue[];
  /** The file chosen and why, when the configuration is a directory. */
  readonly selected: string | undefined;
  /** Re-reads the file now; resolves true when a new configuration was applied. */
  reload(reason?: ConfigReloadReason): Promise<boolean>;
  /** Stops watching (idempotent). */
  close(): void;
}

/**
 * Loads a configuration file (rejecting with a ConfigError when it is bad) and keeps it current: reloads on
 * SIGHUP and on change of the file, debounced. It watches the directory rather than the file, so editors
 * that write a new file and rename it over the old one, and Kubernetes ConfigMap volumes that swap the
 * `..data` symlink, are both seen; a slow poll backs the watch up. A reload whose result is invalid keeps
 * the running configuration and reports why through `onError`; a file whose text did not change is not
 * reloaded (except on SIGHUP).
 */
export async function watchConfig<S extends z.ZodType>(
  options: WatchConfigOptions<S>,
): Promise<ConfigWatcher<z.output<S>>> {
  const { file, schema, onChange, onError } = options;
  const loadOptions: LoadConfigOptions = {
    ...(options.unknownKeys ? { unknownKeys: options.unknownKeys } : {}),
    ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}),
    ...(options.transform ? { transform: options.transform } : {}),
    ...(options.selectFile ? { selectFile: options.selectFile } : {}),
  };
  let running = options.initial ?? (await loadConfig(file, schema, loadOptions));
  const signals = options.signals === undefined ? process : options.signals;

  let closed = false;
  let lastError: string | undefined;
  let queue: Promise<boolean> = Promise.resolve(false);
  const files = createConfigFileWatch({
    file,
    debounceMs: options.debounceMs ?? 200,
    pollIntervalMs: options.pollIntervalMs ?? 5000,
    onChange: () => void reload('file'),
  });

  const attempt = async (reason: ConfigReloadReason): Promise<boolean> => {
    if (closed) return false;
    let next: LoadedConfig<z.output<S>>;
    try {
      next = await loadConfig(file, schema, loadOptions);
    } catch (error) {
      if (closed) return false;
      const err = error instanceof Error ? error : new Error(String(error));
      const text = isConfigError(err) ? err.message : String(err);
      // A file event that reproduces the error already reported says nothing new.
      if (reason !== 'file' || text !== lastError) {
        lastError = text;
        onError(err, reason);
      }
      return false;
    } finally {
      void files.refresh();
    }
    if (closed) return false;
    lastError = undefined;
    if (reason === 'file' && next.text === running.text) return false;
    const previous = running.value;
    running = next;
    try {
      onChange({
        value: next.value,
        previous,
        warnings: next.warnings,
        reason,
        ...(next.selected !== undefined ? { selected: next.selected } : {}),
      });
    } catch (error) {
      onError(error instanceof Error ? error : new Error(String(error)), reason);
    }
    return true;
  };

  const reload = (reason: ConfigReloadReason = 'manual'): Promise<boolean> => {
    queue = queue.then(() => attempt(reason));
    return queue;
  };

  await files.start();

  const onSighup = (): void => void reload('signal');
  signals?.on('SIGHUP', onSighup);

  const close = (): void => {
    if (closed) return;
    closed = true;
    files.close();
    signals?.off('SIGHUP', onSighup);
    options.signal?.removeEventListener('abort', close);
  };
  if (options.signal?.aborted) close();
  else options.signal?.addEventListener('abort', close, { once: true });

  return {
    get current() {
      return running.value;
    },
    get warnings() {
      return running.warnings;
    },
    get selected() {
      return running.selected;
    },
    reload,
    close,
  };
}
