import type { HashingObserver, ProcedureObserver } from '@accounts/api';
import type { QueryObserver } from '@accounts/db';

/** What watches the service (metrics, traces): each part optional, none at all when both are off. */
export interface Observers {
  procedures?: ProcedureObserver;
  hashing?: HashingObserver;
  statements?: QueryObserver;
}

/** Both watchers told of everything; the first's procedure() runs around the second's. */
export function joinObservers(a: Observers = {}, b: Observers = {}): Observers {
  const procedures: ProcedureObserver | undefined =
    a.procedures && b.procedures
      ? {
          procedure: (path, run) => a.procedures!.procedure(path, () => b.procedures!.procedure(path, run)),
          outcome(path, outcome) {
            a.procedures!.outcome(path, outcome);
            b.procedures!.outcome(path, outcome);
          },
        }
      : (a.procedures ?? b.procedures);
  const hashing: HashingObserver | undefined =
    a.hashing && b.hashing
      ? {
          task(pool, times) {
            a.hashing!.task(pool, times);
            b.hashing!.task(pool, times);
          },
        }
      : (a.hashing ?? b.hashing);
  const statements: QueryObserver | undefined =
    a.statements && b.statements
      ? {
          statement(text) {
            const [endA, endB] = [a.statements!.statement(text), b.statements!.statement(text)];
            return (error) => {
              endA(error);
              endB(error);
            };
          },
        }
      : (a.statements ?? b.statements);
  return { procedures, hashing, statements };
}
