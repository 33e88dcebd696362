/**
 * How a bot screen names its `data-testid`s. Grid Bot DCA (`dca-…`) puts a dialog's id on the modal;
 * the classic DCA dashboard (`dash-…`) puts it on the dialog's body and names a few more parts
 * (the progress error detail, the stop dialog and its dismiss button, the closed bot's PnL).
 */
export interface BotTestIds {
  prefix: string;
  dialogIdOn: 'modal' | 'body';
}

/** `<prefix>-<name>`. */
export const tid = (ids: BotTestIds, name: string) => `${ids.prefix}-${name}`;

/** A dialog's id, on the modal or on its body as the screen does it. */
export const dialogTid = (ids: BotTestIds, name: string) => ({
  modal: ids.dialogIdOn === 'modal' ? tid(ids, name) : undefined,
  body: ids.dialogIdOn === 'body' ? tid(ids, name) : undefined,
});

/** An id only the screens that put ids on dialog bodies name. */
export const bodyOnlyTid = (ids: BotTestIds, name: string) =>
  ids.dialogIdOn === 'body' ? tid(ids, name) : undefined;
