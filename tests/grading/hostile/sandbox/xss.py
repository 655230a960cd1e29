# script for the trainer's browser: HTML, SVG and JavaScript outputs the formgrader would render
from IPython.display import HTML, SVG, Javascript, display
display(HTML("<img src=x onerror=\"fetch('/api/xss-html')\"><b>xss-bold</b>"))
display(Javascript("fetch('/api/xss-js')"))
display(SVG("<svg xmlns='http://www.w3.org/2000/svg'><script>fetch('/api/xss-svg')</script></svg>"))
kc_answer = "z"
