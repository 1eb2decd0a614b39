"""A Streamlit session driven through its websocket, without a browser.

What the app's frontend sends and reads: a ``rerun_script`` BackMsg with a page and a query,
then ForwardMsgs until ``script_finished``. Used by the app benchmarks that play a class of
sessions or time the server (benchmarks/app_capacity_ws.py, benchmarks/app_explorer_add.py).
"""

from __future__ import annotations

import time
from typing import Any


class WsSession:
    """One Streamlit session driven through its websocket, as the app's frontend drives it.

    ``load`` asks for a run of a page (``rerun_script``) and waits for ``script_finished``;
    it counts the exception boxes the run sent (``exceptions``).
    """

    def __init__(self, url: str) -> None:
        self.uri = url.replace("http", "ws", 1) + "/_stcore/stream"
        self.ws: Any = None
        self.exceptions: list[str] = []

    async def open(self) -> None:
        import websockets

        self.ws = await websockets.connect(self.uri, subprotocols=["streamlit"],
                                           max_size=None, open_timeout=60)

    async def load(self, query: str, page: str = "explorer") -> float:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = BackMsg()
        msg.rerun_script.query_string = query
        msg.rerun_script.page_name = page
        t = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        while True:
            fm = ForwardMsg()
            fm.ParseFromString(await self.ws.recv())
            kind = fm.WhichOneof("type")
            if kind == "delta" and fm.delta.WhichOneof("type") == "new_element" and (
                    fm.delta.new_element.WhichOneof("type") == "exception"):
                self.exceptions.append(fm.delta.new_element.exception.message)
            if kind == "script_finished":
                return time.perf_counter() - t

    async def close(self) -> None:
        await self.ws.close()
