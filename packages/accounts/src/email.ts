/** RFC 5321/5322 dot-atom local part, LDH domain labels, a letter TLD; ASCII only (IDN as punycode). */
export const emailPattern =
  /^(?=.{1,64}@)[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/
