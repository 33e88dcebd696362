import { useState } from 'react';
import type { BotEventView, DcaTradeView, PendingOrderView } from '@bytx/contract';
import type { BotIdentity, ClosedBotRow } from './api';
import {
  AttentionDialog,
  ClosedBotsDialog,
  EventsDialog,
  PendingOrdersDialog,
  ProgressModal,
  StopDialog,
  TradeHistoryDialog,
} from './dialogs';
import type { useStartFlow, useStopFlow } from './hooks';
import type { BotScreen } from './screen';
import type { StartFormState } from './StartForm';

/** Which bot's trading history, pending orders or event log is open, and the closed bots' history. */
export function useBotDialogs<B extends BotIdentity>() {
  const [history, setHistory] = useState<B | null>(null);
  const [pending, setPending] = useState<B | null>(null);
  const [events, setEvents] = useState<B | null>(null);
  const [closed, setClosed] = useState(false);
  const close = (which: DialogName) => {
    if (which === 'history') setHistory(null);
    else if (which === 'pending') setPending(null);
    else if (which === 'events') setEvents(null);
    else setClosed(false);
  };
  return {
    history,
    setHistory,
    pending,
    setPending,
    events,
    setEvents,
    closed,
    setClosed,
    close,
    open: history !== null || pending !== null || events !== null || closed,
  };
}

type DialogName = 'history' | 'pending' | 'events' | 'closed';
interface Dialogs {
  history: BotIdentity | null;
  pending: BotIdentity | null;
  events: BotIdentity | null;
  closed: boolean;
  open: boolean;
  close: (which: DialogName) => void;
}
type StartFlow = Pick<ReturnType<typeof useStartFlow>, 'phase' | 'detail' | 'close'>;
type StopFlow = Pick<
  ReturnType<typeof useStopFlow>,
  'phase' | 'detail' | 'closeProgress' | 'cancel' | 'choose'
> & {
  bot: BotIdentity | null;
};

/** Whether any of the shared dialogs is open (the polls pause meanwhile). */
export const botDialogOpen = (
  form: Pick<StartFormState, 'attention'>,
  start: Pick<StartFlow, 'phase'>,
  stop: Pick<StopFlow, 'phase' | 'bot'>,
  dialogs: Pick<Dialogs, 'open'>,
) =>
  form.attention !== null || start.phase !== null || stop.phase !== null || stop.bot !== null || dialogs.open;

/** What the dialogs load, the screen's own calls. */
export interface BotDialogLoaders {
  history: (
    bot: BotIdentity,
    page: number,
  ) => Promise<{ historial: DcaTradeView[]; total_pnl: number; pages: number }>;
  pending: (bot: BotIdentity, page: number) => Promise<{ orders: PendingOrderView[]; pages: number }>;
  events: (bot: BotIdentity) => Promise<{ events: BotEventView[] }>;
  closed: () => Promise<{ historial: ClosedBotRow[] }>;
}

/** Every dialog a bot screen shares: attention, start / stop progress, stop, and the four lists. */
export function BotDialogs({
  screen,
  form,
  start,
  stop,
  dialogs,
  load,
}: {
  screen: BotScreen;
  form: Pick<StartFormState, 'attention' | 'acceptAttention'>;
  start: StartFlow;
  stop: StopFlow;
  dialogs: Dialogs;
  load: BotDialogLoaders;
}) {
  return (
    <>
      <AttentionDialog screen={screen} opened={form.attention !== null} onAccept={form.acceptAttention} />
      <ProgressModal
        screen={screen}
        kind="start"
        phase={start.phase}
        detail={start.detail}
        onClose={start.close}
      />
      <ProgressModal
        screen={screen}
        kind="stop"
        phase={stop.phase}
        detail={stop.detail}
        onClose={stop.closeProgress}
      />
      <StopDialog
        screen={screen}
        bot={stop.bot}
        onChoose={(m) => void stop.choose(m)}
        onCancel={stop.cancel}
      />
      <TradeHistoryDialog
        screen={screen}
        bot={dialogs.history}
        load={load.history}
        onClose={() => dialogs.close('history')}
      />
      <PendingOrdersDialog
        screen={screen}
        bot={dialogs.pending}
        load={load.pending}
        onClose={() => dialogs.close('pending')}
      />
      <EventsDialog
        screen={screen}
        bot={dialogs.events}
        load={load.events}
        onClose={() => dialogs.close('events')}
      />
      <ClosedBotsDialog
        screen={screen}
        opened={dialogs.closed}
        load={load.closed}
        onClose={() => dialogs.close('closed')}
      />
    </>
  );
}
