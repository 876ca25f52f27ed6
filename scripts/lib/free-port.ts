// The scripts' and tests' way to it; the worker needs it too (lib/).
export { freePort } from '../../lib/free-port.ts';
