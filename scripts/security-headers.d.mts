export const contentSecurityPolicy: string;
export const isolationHeaders: Record<string, string>;
export const securityHeaders: Record<string, string>;
