import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// The flag applies to contexts made after it is set: a new one hands over `gc`.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/**
 * `work`, with a full garbage collection every few milliseconds until it settles: what a busy
 * process may do at any moment while a request waits, here made certain.
 */
export async function collectingGarbage<T>(work: Promise<T>): Promise<T> {
  const timer = setInterval(collect, 10);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
