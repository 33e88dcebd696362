import type { BotScreen } from '../../../shared/bots/screen';

/** The classic DCA dashboard: `dash-…` test ids (a dialog's on its body), queries under `['dashboard', …]`. */
export const DASH_SCREEN: BotScreen = {
  ids: { prefix: 'dash', dialogIdOn: 'body' },
  scope: 'dashboard',
  ns: 'classic-dca',
};
