import { Text, UnstyledButton } from '@mantine/core';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { HELP_CLASS } from './formHelp';
import { PRESET_KEYS, type PresetKey } from './presets';

/**
 * 'Presets': conservative, balanced, aggressive, each a button named by its preset with its figures
 * under the name (visible, and the button's accessible description). The button of the preset the
 * form holds now is pressed. Plain buttons: no popover or tooltip on the first render (issue 39).
 */
export function PresetPicker({
  figures,
  active,
  onPick,
  testId,
}: {
  /** Each preset's figures as one line, e.g. '20 USDT · TP 1 % · Sep. 1 % · 3 OS'. */
  figures: Record<PresetKey, string>;
  active: PresetKey | null;
  onPick: (key: PresetKey) => void;
  /** `<testId>` on the group, `<testId>-<preset>` on each button. */
  testId: string;
}) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <div role="group" aria-labelledby={`${id}-label`} aria-describedby={`${id}-hint`} data-testid={testId}>
      <Text id={`${id}-label`} size="sm" fw={500}>
        {t('bots.presets.label')}
      </Text>
      <Text id={`${id}-hint`} size="xs" c="dimmed" mb={4} className={HELP_CLASS}>
        {t('bots.presets.hint')}
      </Text>
      {/* Three across where each fits (about 120 px, the longest name); fewer per line in a narrow
          column (the grid page's settings) or on a phone, rather than overflowing. */}
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 6 }}>
        {PRESET_KEYS.map((key) => {
          const on = active === key;
          return (
            <UnstyledButton
              key={key}
              type="button"
              onClick={() => onPick(key)}
              aria-pressed={on}
              // Named by all it shows, the name and the figures (WCAG 2.5.3 label in name).
              data-testid={`${testId}-${key}`}
              style={{
                borderWidth: 1,
                borderStyle: 'solid',
                borderColor: on
                  ? 'var(--mantine-primary-color-filled)'
                  : 'var(--mantine-color-default-border)',
                borderRadius: 'var(--mantine-radius-md)',
                padding: '4px 8px',
                flex: '1 1 120px',
                background: on ? 'var(--mantine-primary-color-light)' : undefined,
              }}
            >
              <Text id={`${id}-${key}`} size="sm" fw={600} span display="block">
                {t(`bots.presets.${key}`)}
              </Text>
              <Text id={`${id}-${key}-figures`} size="xs" span display="block">
                {figures[key]}
              </Text>
            </UnstyledButton>
          );
        })}
      </div>
    </div>
  );
}
