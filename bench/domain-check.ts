/* One sender domain check against the local DNS server of the tests: DNS questions asked, time per check (README, Sender domain health). */

import { dnsLookup } from "../server/tenants/dns";
import { checkDomainHealth } from "../server/tenants/domain-health";
import { startFakeDns } from "../tests/support/fake-dns";

const dns = await startFakeDns({
  "smtp.herald.test": { A: ["192.0.2.10"] },
  "spf.relay.test": { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"] },
  "herald.test": {
    TXT: ["v=spf1 include:spf.relay.test ~all"],
    MX: [{ priority: 10, exchange: "mx.herald.test" }],
  },
  "mx.herald.test": { A: ["192.0.2.25"] },
  "bounces.herald.test": {
    TXT: ["v=spf1 a:smtp.herald.test -all"],
    MX: [{ priority: 10, exchange: "mx.herald.test" }],
  },
  "s1._domainkey.herald.test": { TXT: ["v=DKIM1; k=rsa; p=abc"] },
  "_dmarc.herald.test": { TXT: ["v=DMARC1; p=quarantine"] },
});
const input = {
  fromAddress: "news@herald.test",
  bounceDomain: "bounces.herald.test",
  sendingHost: "smtp.herald.test",
  bounceMxHost: "mx.herald.test",
  dkim: [
    {
      algorithm: "rsa" as const,
      selector: "s1",
      domain: "herald.test",
      recordName: "s1._domainkey.herald.test",
      recordValue: "v=DKIM1; k=rsa; p=abc",
    },
  ],
};
const lookup = dnsLookup([dns.servers]);
await checkDomainHealth(lookup, input);
const n = dns.asked.length;
const t0 = performance.now();
for (let i = 0; i < 100; i++) await checkDomainHealth(lookup, input);
console.log("questions per check", n, "ms per check", ((performance.now() - t0) / 100).toFixed(1));
await dns.close();
