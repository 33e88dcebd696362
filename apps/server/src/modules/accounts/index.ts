// What other modules may use from accounts.
export { requireSupport, requireLogoAllowlist, isSupportEmail, canOpenLogoArea } from './roles';
export { SessionsRepository } from './sessions.repository';
