/** A small structured logger: one JSON line per event, to stderr, never secrets. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type Logger = Record<Exclude<LogLevel, "silent">, (msg: string, fields?: Record<string, unknown>) => void>;

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function createLogger(level: LogLevel = "info", write: (line: string) => void = (l) => console.error(l)): Logger {
  const at =
    (lvl: Exclude<LogLevel, "silent">) =>
    (msg: string, fields?: Record<string, unknown>): void => {
      if (order[lvl] < order[level]) return;
      write(JSON.stringify({ level: lvl, time: new Date().toISOString(), msg, ...fields }));
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export const silentLogger: Logger = createLogger("silent");
