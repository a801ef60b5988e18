// The palette beside the editor: pick a call, its arguments (the scenario's caches and names
// are offered), the CPU and a name for the result, and "Add line" writes the operation at the
// end of the draft, as if typed.

import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { appendLine, argKinds, NO_CPU_CALLS, paletteLine, returnsValue } from '../scenario/palette';
import { BOOT_CACHES, CALLS, declared } from '../scenario/vocabulary';

export function ScenarioPalette({ draft, onChange }: { draft: string; onChange: (text: string) => void }) {
  const { t } = useTranslation();
  const id = useId();
  const [call, setCall] = useState('kmalloc');
  const [args, setArgs] = useState<string[]>(['64', '']);
  const [cpu, setCpu] = useState(0);
  const [target, setTarget] = useState('');
  const [repeat, setRepeat] = useState(1);
  const decl = declared(draft);
  const kinds = argKinds(call);
  const noCpu = NO_CPU_CALLS.has(call);
  const built = paletteLine({ call, args, cpu: noCpu ? null : Math.min(cpu, decl.cpus - 1), target, repeat });
  const caches = [...decl.caches, ...BOOT_CACHES];

  return (
    <fieldset className="palette" data-testid="palette">
      <legend>{t('palette.legend')}</legend>
      <label>
        {t('palette.call')}{' '}
        <select
          value={call}
          data-testid="palette-call"
          onChange={(e) => {
            setCall(e.target.value);
            setArgs([]);
          }}
        >
          {CALLS.filter((c) => !c.v2 || decl.version >= 2).map((c) => (
            <option key={c.name} value={c.name}>
              {c.name}({c.args})
            </option>
          ))}
        </select>
      </label>
      {kinds.map((k, i) => {
        const set = (v: string) => setArgs((old) => Object.assign([...old], { [i]: v }));
        const listId = `${id}-${k.kind}`;
        return (
          <label key={`${call}-${i}`}>
            {k.label}{' '}
            <input
              value={args[i] ?? ''}
              onChange={(e) => set(e.target.value)}
              list={k.kind === 'number' ? undefined : listId}
              inputMode={k.kind === 'number' ? 'numeric' : undefined}
              size={k.kind === 'number' ? 6 : 14}
              data-testid={`palette-arg-${i}`}
            />
            {k.kind !== 'number' && (
              <datalist id={listId}>
                {(k.kind === 'cache' ? caches : decl.names).map((v) => (
                  <option key={v} value={v} />
                ))}
              </datalist>
            )}
          </label>
        );
      })}
      {!noCpu && (
        <label>
          {t('palette.cpu')}{' '}
          <select value={Math.min(cpu, decl.cpus - 1)} onChange={(e) => setCpu(Number(e.target.value))} data-testid="palette-cpu">
            {Array.from({ length: decl.cpus }, (_, c) => (
              <option key={c} value={c}>
                cpu{c}
              </option>
            ))}
          </select>
        </label>
      )}
      {returnsValue(call) && (
        <label>
          {t('palette.target')}{' '}
          <input value={target} onChange={(e) => setTarget(e.target.value)} size={8} placeholder="a, t[]" data-testid="palette-target" />
        </label>
      )}
      <label>
        {t('palette.repeat')}{' '}
        <input type="number" min={1} max={1000} value={repeat} onChange={(e) => setRepeat(Math.max(1, Math.min(1000, Number(e.target.value) || 1)))} data-testid="palette-repeat" />
      </label>
      <output className="palette-line" data-testid="palette-line">
        {built.ok ? <code>{built.line}</code> : <span className="error">{t(built.key, built.args)}</span>}
      </output>
      <button type="button" disabled={!built.ok} onClick={() => built.ok && onChange(appendLine(draft, built.line))} data-testid="palette-add">
        {t('palette.add')}
      </button>
    </fieldset>
  );
}
