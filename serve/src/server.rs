//! Binding, the first line, serving until a signal, shutting down.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tabletop_core::{Instance, Instances};
use tokio::net::TcpListener;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

use crate::admin::AdminService;
use crate::data::DataService;
use crate::instance::{Journal, Shared};
use crate::instance_admin::InstanceAdminService;
use crate::operations::{Finished, OperationsService};
use crate::proto::google::bigtable::admin::v2::bigtable_instance_admin_server::BigtableInstanceAdminServer;
use crate::proto::google::bigtable::admin::v2::bigtable_table_admin_server::BigtableTableAdminServer;
use crate::proto::google::bigtable::v2::bigtable_server::BigtableServer;
use crate::proto::google::longrunning::operations_server::OperationsServer;

/// Where to listen, as Google's emulator takes it (`-host`, `-port`), and
/// what to do on request.
pub struct Options {
    /// The address or host name to bind to (the emulator's default is
    /// `localhost`).
    pub host: String,
    /// The port; 0 picks a free one.
    pub port: u16,
    /// Run on the instance, between requests, each time the process gets
    /// SIGUSR1 (the CLI writes the Key Visualizer page with it).
    pub on_report: Option<Report>,
    /// Keeps each change as it commits (`--state` appends it to the state
    /// file's log), before its answer goes out.
    pub journal: Option<Journal>,
}

/// A report made from the instance while the server runs.
pub type Report = Arc<dyn Fn(&mut Instance) + Send + Sync>;

/// The largest message either side may send: 256 MiB, what Bigtable's
/// client libraries allow, where tonic's default of 4 MiB would refuse a
/// MutateRows of a few big cells. (The JSON protocol still applies
/// Bigtable's own limits on rows, cells and mutations.)
const MAX_MESSAGE_BYTES: usize = 256 << 20;

/// Serves `db` on `options`' address until SIGTERM or Ctrl-C, and hands
/// the instances back as the last request left them, for saving. Writes the first line,
/// `Tabletop Bigtable emulator running on HOST:PORT`, to `out` once it
/// listens. Errors (a port in use, a host that does not resolve) come back
/// as text for the user.
///
/// The runtime is a single thread: every request runs whole under the
/// instances' lock anyway, so more threads only add hand-offs (a request
/// read on one thread, its handler woken on another, its answer written
/// back from there), each a wake-up that costs the most on a busy machine.
pub fn run(options: &Options, db: Instances, out: &mut dyn Write) -> Result<Instances, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    runtime.block_on(async {
        let listener = bind(options).await?;
        let address = listener
            .local_addr()
            .map_err(|e| format!("cannot read the bound address: {e}"))?;
        let shared = Shared::with_journal(db, options.journal.clone());
        // Before the first line: a client may call as soon as it sees it.
        crate::transcode::prepare();
        // Listening for SIGUSR1 before the first line, whose reader may
        // send it at once.
        if let Some(report) = options.on_report.as_ref() {
            report_on_signal(shared.clone(), Arc::clone(report))?;
        }
        announce(out, address)?;
        serve_until_signal(listener, shared.clone()).await?;
        Ok(shared.take())
    })
}

/// How long requests in flight may go on after SIGTERM or Ctrl-C (a
/// client that stopped reading a stream would otherwise hold the server
/// forever). Each request, and each page of a ReadRows, runs whole under
/// the instance's lock, so stopping without them leaves the instance whole.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

async fn serve_until_signal(listener: TcpListener, shared: Shared) -> Result<(), String> {
    let (stopping, stopped) = tokio::sync::oneshot::channel::<()>();
    let shutdown = async move {
        shutdown_signal().await;
        let _ = stopping.send(());
    };
    let server = serve(listener, shared, shutdown);
    tokio::pin!(server);
    let grace_over = async move {
        if stopped.await.is_ok() {
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        } else {
            std::future::pending::<()>().await;
        }
    };
    tokio::select! {
        result = &mut server => result,
        () = grace_over => {
            eprintln!(
                "tabletop: requests still running {} s after the signal were cut off",
                SHUTDOWN_GRACE.as_secs()
            );
            Ok(())
        }
    }
}

async fn bind(options: &Options) -> Result<TcpListener, String> {
    let address = format!("{}:{}", options.host, options.port);
    TcpListener::bind(&address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e}"))
}

fn announce(out: &mut dyn Write, address: SocketAddr) -> Result<(), String> {
    writeln!(out, "Tabletop Bigtable emulator running on {address}")
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write the first line: {e}"))
}

/// Serves the data, table admin and instance admin APIs on `listener` until `shutdown`
/// completes, then lets requests in flight finish.
pub async fn serve(
    listener: TcpListener,
    shared: Shared,
    shutdown: impl Future<Output = ()>,
) -> Result<(), String> {
    let data = BigtableServer::new(DataService {
        shared: shared.clone(),
    })
    .max_decoding_message_size(MAX_MESSAGE_BYTES)
    .max_encoding_message_size(MAX_MESSAGE_BYTES);
    let finished = Finished::default();
    let admin = BigtableTableAdminServer::new(AdminService {
        shared: shared.clone(),
        finished: finished.clone(),
    })
    .max_decoding_message_size(MAX_MESSAGE_BYTES);
    let instance_admin = BigtableInstanceAdminServer::new(InstanceAdminService {
        shared,
        finished: finished.clone(),
    });
    let operations = OperationsServer::new(OperationsService { finished });
    Server::builder()
        .add_service(data)
        .add_service(admin)
        .add_service(instance_admin)
        .add_service(operations)
        .serve_with_incoming_shutdown(incoming(listener), shutdown)
        .await
        .map_err(|e| format!("server failed: {e}"))
}

/// The connections `listener` accepts, with Nagle's algorithm off: a
/// gRPC answer is several small writes (headers, message, trailers), and
/// holding the last one back for the client's delayed ACK would add about
/// 40 ms to every call.
fn incoming(listener: TcpListener) -> TcpIncoming {
    TcpIncoming::from(listener).with_nodelay(Some(true))
}

/// Runs `report` on the instance at each SIGUSR1, for as long as the
/// server runs.
#[cfg(unix)]
fn report_on_signal(shared: Shared, report: Report) -> Result<(), String> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut usr1 = signal(SignalKind::user_defined1())
        .map_err(|e| format!("cannot listen for SIGUSR1: {e}"))?;
    tokio::spawn(async move {
        while usr1.recv().await.is_some() {
            shared.with(|db| report(db));
        }
    });
    Ok(())
}

/// Elsewhere there is no SIGUSR1: the report is made only on stopping.
#[cfg(not(unix))]
fn report_on_signal(_shared: Shared, _report: Report) -> Result<(), String> {
    Ok(())
}

/// Completes on SIGTERM or Ctrl-C (SIGINT).
async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
