export const keyLength = 32
