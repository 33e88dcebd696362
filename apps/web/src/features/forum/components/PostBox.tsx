import { textLength, textProblem } from '@bytx/contract';
import { Alert, Button, Group, Stack, Text, Textarea } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';

/**
 * A text box with a send button. A blank text is ignored (spec part 1 §5): nothing is sent.
 * Used for new posts and for the reply box under every post.
 */
export function PostBox({
  maxChars,
  placeholder,
  submitLabel,
  pending,
  onSubmit,
  testId,
  minRows = 3,
  autoFocus = false,
}: {
  maxChars: number;
  placeholder: string;
  submitLabel: string;
  pending: boolean;
  onSubmit: (content: string) => Promise<unknown>;
  testId: string;
  minRows?: number;
  /** A box opened by a click (the reply box) takes the focus. */
  autoFocus?: boolean;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const blank = text.trim().length === 0;
  // The server's own rules (packages/contract): the same count and the same refused characters.
  const used = textLength(text);
  const tooLong = used > maxChars;
  const badChars = textProblem(text, 'content') !== null;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const content = text.trim();
    if (!content || pending || tooLong || badChars) return;
    setError(null);
    try {
      await onSubmit(content);
      setText('');
    } catch (err) {
      setError(errorMessage(err, t('forum.sendFailed')));
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} data-testid={testId}>
      <Stack gap={6}>
        <Textarea
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          placeholder={placeholder}
          aria-label={placeholder}
          rows={minRows}
          autoFocus={autoFocus}
          resize="vertical"
          error={badChars ? t('forum.badChars') : undefined}
          data-testid={`${testId}-input`}
        />
        <Group justify="space-between">
          <Text size="xs" c={tooLong ? 'red' : 'dimmed'} data-testid={`${testId}-count`}>
            {t('forum.chars', { used, max: maxChars })}
          </Text>
          <Button
            type="submit"
            size="xs"
            disabled={blank || tooLong || badChars}
            loading={pending}
            data-testid={`${testId}-submit`}
          >
            {submitLabel}
          </Button>
        </Group>
        {error && (
          <Alert color="red" variant="light" data-testid={`${testId}-error`}>
            {error}
          </Alert>
        )}
      </Stack>
    </form>
  );
}
