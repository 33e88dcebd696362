import { Button } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText } from './copy';

/** How long 'Copied' shows after a copy. */
export const COPIED_MS = 2_000;

/** 'Copy', then 'Copied' for 2 s; `text` may be fetched on demand (the secret). */
export function CopyButton({
  text,
  testId,
}: {
  text: string | (() => Promise<string | null>);
  testId?: string;
}) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  const copy = async () => {
    const value = typeof text === 'string' ? text : await text();
    if (value === null || !(await copyText(value))) return;
    setCopied(true);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPIED_MS);
  };
  return (
    <Button
      size="compact-xs"
      variant={copied ? 'light' : 'default'}
      color={copied ? 'green' : undefined}
      onClick={() => void copy()}
      data-testid={testId}
      data-copied={copied ? '1' : '0'}
    >
      {copied ? t('signal.messages.copied') : t('signal.messages.copy')}
    </Button>
  );
}
