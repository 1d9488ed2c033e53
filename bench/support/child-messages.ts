import type { ChildProcess } from 'node:child_process';

/** Sends `message` to a child process and resolves with its first reply of type `reply`. */
export function ask<T>(child: ChildProcess, message: string, reply: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type === reply) {
        child.off('message', on);
        resolve(m as T);
      }
    };
    child.on('message', on);
    child.send(message);
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
