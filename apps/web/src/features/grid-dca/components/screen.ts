import type { BotScreen } from '../../../shared/bots/screen';

/** Grid Bot DCA: `dca-…` test ids (a dialog's on its modal), queries under `['dca', …]`. */
export const DCA_SCREEN: BotScreen = {
  ids: { prefix: 'dca', dialogIdOn: 'modal' },
  scope: 'dca',
  ns: 'grid-dca',
};
