/**
 * One AWS SDK client per region, made on first use and kept for the container's life: a run reads
 * secrets in the regions its targets name, the brief reads logs in every probe region, and a client
 * per call would repeat the credential lookup and the TLS handshake.
 */
export function perRegion<C>(create: (region: string) => C): (region: string) => C {
  const clients = new Map<string, C>();
  return (region) => {
    let client = clients.get(region);
    if (!client) clients.set(region, (client = create(region)));
    return client;
  };
}
