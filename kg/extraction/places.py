"""Whether a Chinese name jieba tags as a place (`ns`) is one.

jieba's dictionary tags some company names `ns` (京东, "east of Beijing", is also JD.com), so
"我在京东上班" read as working in a city. A name is a place when it carries an administrative
suffix (市, 省, 区, 县…) or is one of the cities, provinces and countries people name without
one; otherwise where someone works is their employer.
"""

from __future__ import annotations

import re

_SUFFIX = re.compile(r'.+?(?:市|省|区|县|镇|乡|村|州|岛|湾|港|街道|自治区|特别行政区|国)$')
# provinces and regions, cities, countries and cities abroad
_NAMES = (
    '北京 上海 天津 重庆 河北 山西 辽宁 吉林 黑龙江 江苏 浙江 安徽 福建 江西 山东 河南 湖北 '
    '湖南 广东 海南 四川 贵州 云南 陕西 甘肃 青海 台湾 内蒙古 广西 西藏 宁夏 新疆 香港 澳门 '
    '深圳 南京 成都 武汉 西安 厦门 青岛 大连 长沙 郑州 济南 合肥 昆明 沈阳 哈尔滨 长春 南昌 '
    '南宁 贵阳 太原 石家庄 呼和浩特 乌鲁木齐 拉萨 西宁 银川 兰州 海口 三亚 宁波 无锡 珠海 '
    '东莞 佛山 中山 汕头 烟台 威海 大理 丽江 桂林 洛阳 开封 绍兴 嘉兴 南通 扬州 镇江 常熟 '
    '昆山 张家口 秦皇岛 唐山 保定 廊坊 '
    '中国 美国 英国 法国 德国 日本 韩国 俄罗斯 加拿大 澳大利亚 新加坡 意大利 西班牙 荷兰 '
    '瑞士 瑞典 挪威 丹麦 芬兰 葡萄牙 印度 泰国 越南 马来西亚 新西兰 巴西 墨西哥 阿根廷 埃及 '
    '伦敦 巴黎 柏林 纽约 东京 首尔 大阪 京都 悉尼 墨尔本 多伦多 温哥华 旧金山 洛杉矶 西雅图 '
    '波士顿 芝加哥 慕尼黑 罗马 米兰 马德里 巴塞罗那 阿姆斯特丹 维也纳 布拉格 莫斯科 迪拜 '
    '曼谷 吉隆坡 里斯本 都柏林 爱丁堡 苏黎世 日内瓦 奥克兰'
)
_KNOWN = frozenset(_NAMES.split())


def is_place(name: str) -> bool:
    """Whether `name` (a jieba `ns` word) names a place rather than an organisation."""
    name = name.strip()
    return name in _KNOWN or bool(_SUFFIX.fullmatch(name))
