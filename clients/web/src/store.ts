// A minimal observable value and a Preact hook over it: the planner's state
// is a handful of these, no framework store needed.
import { useEffect, useState } from "preact/hooks";

export interface Signal<T> {
  get(): T;
  set(v: T): void;
  subscribe(f: (v: T) => void): () => void;
}

export function signal<T>(initial: T): Signal<T> {
  let value = initial;
  const subs = new Set<(v: T) => void>();
  return {
    get: () => value,
    set(v: T) {
      value = v;
      for (const f of [...subs]) f(v);
    },
    subscribe(f) {
      subs.add(f);
      return () => subs.delete(f);
    },
  };
}

export function useSignal<T>(s: Signal<T>): T {
  const [, force] = useState(0);
  useEffect(() => s.subscribe(() => force((n) => n + 1)), [s]);
  return s.get();
}
