// What other modules may use from accounts.
export {
  requireSupport,
  requireTrading,
  requireLogoAllowlist,
  isSupportEmail,
  canTrade,
  canOpenLogoArea,
} from './roles';
export { SessionsRepository } from './sessions.repository';
