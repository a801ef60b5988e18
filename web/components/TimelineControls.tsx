// The controls bar of a player: move buttons, play/pause, speed, playback level, a scrubber over
// the whole run, a jump-to-step box and the position text. It holds no timeline state of its
// own (only the text being typed into the jump box): everything comes from the timeline state
// and goes out through dispatch, so the keyboard shortcuts and these controls always agree.

import { useId, useState, type Dispatch, type FormEvent, type ReactNode, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { ariaKeyShortcuts, type TimelineShortcut } from '../timeline/shortcuts';
import { parseStepInput } from '../timeline/stepInput';
import { LEVELS, SPEEDS, actions, opIndexAt, parseSpeed, type TimelineAction, type TimelineState } from '../timeline/timeline';

export interface TimelineControlsProps {
  state: TimelineState;
  dispatch: Dispatch<TimelineAction>;
  /** The text of operation i (0-based), e.g. "a = kmalloc(64) on cpu0", shown beside the position. */
  opLabel?: (i: number) => string;
  /** The operation the step at the cursor belongs to, when the cursor's place among the
   *  operations' ends does not tell it: inside a concurrent block, whose operations' steps
   *  interleave. */
  opAt?: number;
  /** Receives the jump box, so the `g` shortcut can focus it. */
  jumpInputRef?: RefObject<HTMLInputElement | null>;
  /** When given, a button that opens the keyboard shortcut help. */
  onHelp?: () => void;
}

export function TimelineControls({ state, dispatch, opLabel, opAt, jumpInputRef, onHelp }: TimelineControlsProps) {
  const { t } = useTranslation();
  const id = useId();

  const op = opAt ?? opIndexAt(state.cursor, state.opEnds, state.bootEnd);
  const numbers = { step: state.cursor, steps: state.steps, op: op + 1, ops: state.opEnds.length };

  return (
    <section className="timeline-controls" aria-label={t('timeline.controls')} data-testid="timeline-controls">
      <div className="timeline-row">
        <MoveButtons state={state} dispatch={dispatch} />
        <Scrubber state={state} dispatch={dispatch} op={op} numbers={numbers} />
        <SpeedSelect state={state} dispatch={dispatch} />
        {onHelp && (
          <button type="button" className="timeline-button" data-testid="help" aria-label={t('timeline.help')} title={t('timeline.help')} aria-keyshortcuts="?" onClick={onHelp}>
            ?
          </button>
        )}
      </div>
      <div className="timeline-row">
        <output className="timeline-position" data-testid="position" aria-live={state.playing ? 'off' : 'polite'}>
          {op < 0 ? t('timeline.positionBoot', numbers) : t('timeline.position', numbers)}
          {op >= 0 && opLabel && (
            <>
              {' · '}
              <span className="timeline-op-label" data-testid="op-label">
                {opLabel(op)}
              </span>
            </>
          )}
        </output>
        <LevelChoice state={state} dispatch={dispatch} name={`${id}-level`} />
        <JumpBox state={state} dispatch={dispatch} id={`${id}-jump`} inputRef={jumpInputRef} />
      </div>
    </section>
  );
}

/** What the controls below read of the timeline, and where they send their actions. */
interface ControlProps {
  state: TimelineState;
  dispatch: Dispatch<TimelineAction>;
}

/** The range over every step, beside the buttons. */
function Scrubber({ state, dispatch, op, numbers }: ControlProps & { op: number; numbers: Record<string, number> }) {
  const { t } = useTranslation();
  const empty = state.steps === 0;
  return (
    <input
      type="range"
      className="timeline-scrubber"
      data-testid="scrubber"
      min={0}
      max={state.steps}
      step={1}
      value={state.cursor}
      disabled={empty}
      aria-label={t('timeline.scrubber')}
      aria-valuetext={op < 0 ? t('timeline.valueTextBoot', numbers) : t('timeline.valueText', numbers)}
      onChange={(e) => dispatch(actions.jump(Number(e.target.value)))}
    />
  );
}

/** First, back an operation, back a step, play/pause, forward a step, forward an operation, last.
 *  aria-disabled rather than disabled: a button keeps focus when a press takes the cursor to the
 *  end it points at, and a further press there is a no-op in the reducer. */
function MoveButtons({ state, dispatch }: ControlProps) {
  const { t } = useTranslation();
  const empty = state.steps === 0;
  const atStart = state.cursor === 0;
  const atEnd = state.cursor === state.steps;
  const move = (action: TimelineShortcut, label: string, icon: ReactNode, disabled: boolean) => (
    <button
      type="button"
      className="timeline-button"
      data-testid={testIds[action]}
      aria-label={label}
      title={label}
      aria-keyshortcuts={ariaKeyShortcuts(action)}
      aria-disabled={disabled}
      onClick={() => dispatch({ type: action })}
    >
      {icon}
    </button>
  );
  return (
    <div className="timeline-buttons" role="group" aria-label={t('timeline.controls')}>
      {move('first', t('timeline.first'), <Icon d={ICONS.first} />, atStart)}
      {move('opBack', t('timeline.opBack'), <Icon d={ICONS.opBack} />, atStart)}
      {move('stepBack', t('timeline.stepBack'), <Icon d={ICONS.stepBack} />, atStart)}
      {move(
        'toggle',
        state.playing ? t('timeline.pause') : t('timeline.play'),
        <Icon d={state.playing ? ICONS.pause : ICONS.play} />,
        empty,
      )}
      {move('stepForward', t('timeline.stepForward'), <Icon d={ICONS.stepForward} />, atEnd)}
      {move('opForward', t('timeline.opForward'), <Icon d={ICONS.opForward} />, atEnd)}
      {move('last', t('timeline.last'), <Icon d={ICONS.last} />, atEnd)}
    </div>
  );
}

/** How fast playing goes, in steps or operations a second as the level says. */
function SpeedSelect({ state, dispatch }: ControlProps) {
  const { t } = useTranslation();
  return (
    <label className="timeline-speed">
      {t('timeline.speed')}{' '}
      <select
        data-testid="speed"
        value={String(state.speed)}
        onChange={(e) => {
          const speed = parseSpeed(e.target.value);
          if (speed !== null) dispatch(actions.setSpeed(speed));
        }}
      >
        {SPEEDS.map((s) => (
          <option key={s} value={String(s)}>
            {s === 'max' ? t('timeline.speedMax') : t(state.level === 'op' ? 'timeline.speedOps' : 'timeline.speedSteps', { speed: s })}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Whether playing moves by operation or by step; `name` groups the radio buttons. */
function LevelChoice({ state, dispatch, name }: ControlProps & { name: string }) {
  const { t } = useTranslation();
  return (
    <fieldset className="timeline-level" data-testid="level">
      <legend>{t('timeline.level')}</legend>
      {LEVELS.map((level) => (
        <label key={level}>
          <input
            type="radio"
            name={name}
            value={level}
            checked={state.level === level}
            data-testid={`level-${level}`}
            onChange={() => dispatch(actions.setLevel(level))}
          />{' '}
          {t(level === 'op' ? 'timeline.levelOp' : 'timeline.levelStep')}
        </label>
      ))}
    </fieldset>
  );
}

/** The jump-to-step box: the text being typed is its only state; a step it cannot read is
 *  announced under it. `id` is the input's. */
function JumpBox({ state, dispatch, id, inputRef }: ControlProps & { id: string; inputRef?: RefObject<HTMLInputElement | null> }) {
  const { t } = useTranslation();
  const [jumpText, setJumpText] = useState('');
  const [jumpInvalid, setJumpInvalid] = useState(false);
  const empty = state.steps === 0;
  const onJump = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseStepInput(jumpText, state.steps);
    setJumpInvalid(!parsed.ok);
    if (parsed.ok) {
      dispatch(actions.jump(parsed.cursor));
      setJumpText('');
    }
  };
  return (
    <form className="timeline-jump" onSubmit={onJump} noValidate>
      <label htmlFor={id}>{t('timeline.jump')}</label>{' '}
      <input
        id={id}
        ref={inputRef}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        size={8}
        data-testid="jump"
        value={jumpText}
        aria-invalid={jumpInvalid}
        aria-describedby={jumpInvalid ? `${id}-error` : undefined}
        aria-keyshortcuts="g"
        disabled={empty}
        onChange={(e) => {
          setJumpText(e.target.value);
          setJumpInvalid(false);
        }}
      />{' '}
      <button type="submit" data-testid="jump-go" disabled={empty}>
        {t('timeline.jumpGo')}
      </button>
      {jumpInvalid && (
        <span id={`${id}-error`} className="error" role="alert" data-testid="jump-error">
          {t('timeline.jumpInvalid', { steps: state.steps })}
        </span>
      )}
    </form>
  );
}

const testIds: Record<TimelineShortcut, string> = {
  first: 'first',
  opBack: 'op-back',
  stepBack: 'step-back',
  toggle: 'play',
  stepForward: 'step-forward',
  opForward: 'op-forward',
  last: 'last',
  faster: 'faster',
  slower: 'slower',
};

/** Media-control glyphs on a 16×16 grid: bars are steps' ends, triangles the direction. */
const ICONS = {
  play: 'M4 2 L14 8 L4 14 Z',
  pause: 'M3 2 H6.5 V14 H3 Z M9.5 2 H13 V14 H9.5 Z',
  stepForward: 'M3 2 L11 8 L3 14 Z M11.5 2 H13.5 V14 H11.5 Z',
  stepBack: 'M13 2 L5 8 L13 14 Z M2.5 2 H4.5 V14 H2.5 Z',
  opForward: 'M1 2 L8 8 L1 14 Z M8 2 L15 8 L8 14 Z',
  opBack: 'M15 2 L8 8 L15 14 Z M8 2 L1 8 L8 14 Z',
  first: 'M1 2 H3 V14 H1 Z M9.5 2 L3.5 8 L9.5 14 Z M15.5 2 L9.5 8 L15.5 14 Z',
  last: 'M15 2 H13 V14 H15 Z M6.5 2 L12.5 8 L6.5 14 Z M0.5 2 L6.5 8 L0.5 14 Z',
};

function Icon({ d }: { d: string }) {
  return (
    <svg className="timeline-icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
      <path d={d} fill="currentColor" />
    </svg>
  );
}
