// k6 gives every script a console (log, info, warn, error, debug) that writes to its log; @types/k6 does not declare
// it, and the DOM or Node.js types that would are not k6's. Only what sign.js uses.
declare const console: {
  warn(...data: unknown[]): void;
};
