import type { LogoAccessResponse } from '@bytx/contract';
import { api } from '../../../shared/api/client';

/** 200 for the allow-listed accounts (LOGO_ALLOWLIST_EMAILS); 403 'Acceso denegado. Solo usuarios autorizados.' otherwise. */
export const checkMoviesAccess = () => api<LogoAccessResponse>('/api/peliculas-series/access');
