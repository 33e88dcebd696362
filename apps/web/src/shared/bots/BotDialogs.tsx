import { lazy, Suspense, useState, type ReactNode } from 'react';
import type { BotEventView, DcaTradeView, PendingOrderView } from '@bytx/contract';
import type { BotIdentity, ClosedBotRow } from './api';
import type * as Dialogs from './dialogs';
import type { useStartFlow, useStopFlow } from './hooks';
import type { BotScreen } from './screen';
import type { StartFormState } from './StartForm';

/*
 * The dialogs are one chunk of their own (./dialogs.tsx with Mantine's Modal, ScrollArea, Table, the
 * focus trap and the scroll lock), fetched when the first of them opens: a bot screen's first visit
 * draws none of them (issue 39, `/bot-dca`'s first page). Each is mounted from its first opening on, so
 * its closing transition still plays.
 */
const loadDialogs = () => import('./dialogs');
const later = <K extends keyof typeof Dialogs>(name: K) =>
  lazy(async () => ({ default: (await loadDialogs())[name] }));
const AttentionDialog = later('AttentionDialog');
const ProgressModal = later('ProgressModal');
const StopDialog = later('StopDialog');
const TradeHistoryDialog = later('TradeHistoryDialog');
const PendingOrdersDialog = later('PendingOrdersDialog');
const EventsDialog = later('EventsDialog');
const ClosedBotsDialog = later('ClosedBotsDialog');

/** Renders `children` (a lazy dialog) from the first time `open` is true on. */
function FromFirstOpen({ open, children }: { open: boolean; children: ReactNode }) {
  const [opened, setOpened] = useState(open);
  // Set while rendering (React's pattern for state derived from props): the dialog mounts in this render.
  if (open && !opened) setOpened(true);
  return opened ? <Suspense fallback={null}>{children}</Suspense> : null;
}

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
      <FromFirstOpen open={form.attention !== null}>
        <AttentionDialog screen={screen} opened={form.attention !== null} onAccept={form.acceptAttention} />
      </FromFirstOpen>
      <FromFirstOpen open={start.phase !== null}>
        <ProgressModal
          screen={screen}
          kind="start"
          phase={start.phase}
          detail={start.detail}
          onClose={start.close}
        />
      </FromFirstOpen>
      <FromFirstOpen open={stop.phase !== null}>
        <ProgressModal
          screen={screen}
          kind="stop"
          phase={stop.phase}
          detail={stop.detail}
          onClose={stop.closeProgress}
        />
      </FromFirstOpen>
      <FromFirstOpen open={stop.bot !== null}>
        <StopDialog
          screen={screen}
          bot={stop.bot}
          onChoose={(m) => void stop.choose(m)}
          onCancel={stop.cancel}
        />
      </FromFirstOpen>
      <FromFirstOpen open={dialogs.history !== null}>
        <TradeHistoryDialog
          screen={screen}
          bot={dialogs.history}
          load={load.history}
          onClose={() => dialogs.close('history')}
        />
      </FromFirstOpen>
      <FromFirstOpen open={dialogs.pending !== null}>
        <PendingOrdersDialog
          screen={screen}
          bot={dialogs.pending}
          load={load.pending}
          onClose={() => dialogs.close('pending')}
        />
      </FromFirstOpen>
      <FromFirstOpen open={dialogs.events !== null}>
        <EventsDialog
          screen={screen}
          bot={dialogs.events}
          load={load.events}
          onClose={() => dialogs.close('events')}
        />
      </FromFirstOpen>
      <FromFirstOpen open={dialogs.closed}>
        <ClosedBotsDialog
          screen={screen}
          opened={dialogs.closed}
          load={load.closed}
          onClose={() => dialogs.close('closed')}
        />
      </FromFirstOpen>
    </>
  );
}
