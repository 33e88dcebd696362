import { NotSupportedError, type Venue } from '@bytx/venues';
import type { AppContext } from '../../context';
import type { VenueFactory } from './venue-registry';

/** PaperVenue on the shared simulated market, CcxtVenue for live keys. */
export function defaultVenueFactory(_ctx: AppContext): VenueFactory {
  return {
    paper: ({ exchange }): Venue => {
      throw new NotSupportedError('PaperVenue is not available yet', exchange);
    },
    live: ({ exchange }): Venue => {
      throw new NotSupportedError('CcxtVenue is not available yet', exchange);
    },
    verifyLive: async (venue) => {
      await venue.fetchBalance();
    },
  };
}
