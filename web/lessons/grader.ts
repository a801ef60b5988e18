// Grading an exercise by running the simulator: the lesson's scenario is opened in the
// simulator worker (once per scenario: the page's player shares the worker through the same
// RunSession, which opens again whichever run a request is about), the state after `answer_at` steps is read where the
// exercise's answer names, and the student's answer is compared with it (answer.ts).

import type { SimClient } from '../core/client';
import { runSession, type RunSession } from '../player/runSession';
import { atPath, grade } from './answer';
import { SLABINFO_COLUMNS, sysfsField, type AnswerSpec } from './format';

export class Grader {
  private readonly session: RunSession;

  constructor(client: SimClient) {
    this.session = runSession(client);
  }

  /** What the simulator gives where `answer` points, after `answerAt` steps of `scenario`. */
  async expected(scenario: string, answerAt: number, answer: AnswerSpec): Promise<unknown> {
    if (answer.from === 'slabinfo') {
      const files = await this.session.files(scenario, answerAt, null);
      const line = files.slabinfo.split('\n').find((l) => l.split(/\s+/)[0] === answer.cache);
      const column = SLABINFO_COLUMNS.indexOf(answer.field);
      const cell = line?.trim().split(/\s+/)[column + 1];
      return cell === undefined ? undefined : Number(cell);
    }
    if (answer.from === 'sysfs') {
      const files = await this.session.files(scenario, answerAt, answer.cache);
      const file = 'Ok' in files.sysfs ? files.sysfs.Ok.find(([name]) => name === answer.file) : undefined;
      return file === undefined ? undefined : sysfsField(file[1], answer.key);
    }
    const view = await this.session.view(scenario, answerAt, { cache: answer.from === 'snapshot' ? (answer.cache ?? null) : null, slab: null });
    return atPath(answer.from === 'snapshot' ? view.snapshot : view.step, answer.path);
  }

  /** Whether `given` is right, and the simulator's answer; null when the simulator's state has
   *  nothing where the answer points (the exercise cannot be graded, which is not the
   *  student's mistake). */
  async check(scenario: string, answerAt: number, answer: AnswerSpec, given: string): Promise<{ correct: boolean; value: unknown } | null> {
    const value = await this.expected(scenario, answerAt, answer);
    return value === undefined ? null : { correct: grade(value, given), value };
  }
}
